// An independent Avro producer for the Avro tests: registers schemas with Confluent's registry
// client (@kafkajs/confluent-schema-registry), encodes records with avsc in Confluent's wire
// format, and sends them with kafkajs. Nothing of lakestream is used.
//
//   node produce_avro.js BOOTSTRAP REGISTRY_URL PLAN.json
//
// PLAN: {"topic": "t", "subject": "t-value", "steps": [{"schema": {...}, "records": [...],
//        "keys": [...optional...], "partitions": [...optional...], "compatibility": "NONE" (optional:
//        the subject's level the producer expects)}]}
// Record values are Avro's JSON forms, except: a decimal (bytes + logicalType decimal) is given as
// its text ("12.34") and encoded here to its unscaled two's-complement bytes.
// Prints one line per step: "registered <id>" or "refused <message>", then "sent <n>".
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry');

const [bootstrap, registryUrl, planFile] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));

function decimalBytes(text, scale) {
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  let unscaled = BigInt(whole + fraction.padEnd(scale, '0').slice(0, scale));
  if (negative) unscaled = -unscaled;
  // Two's complement, big-endian, as few bytes as hold the sign.
  const bytes = [];
  let v = unscaled;
  do {
    bytes.unshift(Number(BigInt.asUintN(8, v)));
    v >>= 8n;
  } while (!((v === 0n && (bytes[0] & 0x80) === 0) || (v === -1n && (bytes[0] & 0x80) !== 0)));
  return Buffer.from(bytes);
}

// The value of `type` in the form avsc takes.
function toAvsc(type, value, named) {
  if (value === null || value === undefined) return value;
  if (typeof type === 'string' && named[type]) type = named[type];
  if (Array.isArray(type)) {
    const branch = type.find((t) => t !== 'null');
    return toAvsc(branch, value, named);
  }
  if (typeof type !== 'object') return value;
  if (type.name) named[type.name] = type;
  if (type.type === 'bytes' && type.logicalType === 'decimal') return decimalBytes(String(value), type.scale || 0);
  if (type.type === 'record') {
    const out = {};
    for (const f of type.fields) out[f.name] = toAvsc(f.type, value[f.name], named);
    return out;
  }
  if (type.type === 'array') return value.map((v) => toAvsc(type.items, v, named));
  if (type.type === 'map') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = toAvsc(type.values, v, named);
    return out;
  }
  return value;
}

async function main() {
  const registry = new SchemaRegistry({ host: registryUrl });
  const kafka = new Kafka({ brokers: bootstrap.split(','), clientId: 'avro-test', logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  for (const step of plan.steps) {
    let id;
    try {
      const options = { subject: plan.subject };
      if (step.compatibility) options.compatibility = step.compatibility;
      ({ id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(step.schema) }, options));
      console.log('registered ' + id);
    } catch (e) {
      console.log('refused ' + e.message.replace(/\n/g, ' '));
      continue;
    }
    const messages = [];
    for (let i = 0; i < (step.records || []).length; i++) {
      const value = await registry.encode(id, toAvsc(step.schema, step.records[i], {}));
      const message = { value };
      if (step.keys) message.key = String(step.keys[i]);
      if (step.partitions) message.partition = step.partitions[i];
      messages.push(message);
    }
    // In requests of a thousand, under the brokers' request size limits.
    for (let at = 0; at < messages.length; at += 1000)
      await producer.send({ topic: plan.topic, messages: messages.slice(at, at + 1000), acks: -1 });
    console.log('sent ' + messages.length);
  }
  await producer.disconnect();
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
