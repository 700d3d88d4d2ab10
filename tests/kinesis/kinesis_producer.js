// The Kinesis tests' independent producer and operator: the AWS SDK for JavaScript's Kinesis
// client (not lakestream's), against the emulator. Usage: node kinesis_producer.js ENDPOINT PLAN
// PLAN is a JSON file {"steps": [...]}, each step one of:
//   {"create": STREAM, "shards": N}
//   {"put_records": STREAM, "records": [{"data": TEXT, "key": PARTITION_KEY}, ...]}  (PutRecords, 500 at a time)
//   {"put_record": STREAM, "records": [...]}                                           (PutRecord, one by one)
//   {"put_avro": STREAM, "registry": URL, "subject": S, "schema": {...}, "records": [{"value": {...}, "key": K}, ...]}
//       (registers the schema with Confluent's registry client and puts each value in Confluent's
//        wire format, encoded by that client's avsc; PutRecords)
//   {"split": STREAM, "shard": ID}              (at the middle of its hash key range)
//   {"merge": STREAM, "shard": ID, "adjacent": ID}
//   {"delete": STREAM}
//   {"sleep_ms": MS}
// Prints one JSON line per record put: {"shard": ID, "sequence": NUMBER}, in the order of the
// plan's records, and {"shards": [...]} after a split or merge (ListShards).
const { KinesisClient, CreateStreamCommand, PutRecordsCommand, PutRecordCommand, SplitShardCommand,
        MergeShardsCommand, DeleteStreamCommand, DescribeStreamSummaryCommand, ListShardsCommand } =
  require("@aws-sdk/client-kinesis");
const { NodeHttpHandler } = require("@smithy/node-http-handler");
const { SchemaRegistry, SchemaType } = require("@kafkajs/confluent-schema-registry");
const fs = require("fs");

const [endpoint, planFile] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, "utf8"));
// HTTP/1.1: the SDK's default HTTP/2 handler is for SubscribeToShard, which the emulator lacks.
const client = new KinesisClient({ endpoint, region: "us-east-1", requestHandler: new NodeHttpHandler(),
                                   credentials: { accessKeyId: "test", secretAccessKey: "test" } });

async function waitActive(stream, gone = false) {
  for (let i = 0; i < 200; i++) {
    try {
      const s = await client.send(new DescribeStreamSummaryCommand({ StreamName: stream }));
      if (!gone && s.StreamDescriptionSummary.StreamStatus === "ACTIVE") return;
    } catch (e) {
      if (gone && e.name === "ResourceNotFoundException") return;
      if (!gone && e.name !== "ResourceNotFoundException") throw e;
    }
    await new Promise(r => setTimeout(r, 50));
  }
  throw new Error("stream " + stream + " did not become " + (gone ? "deleted" : "ACTIVE"));
}

async function shardsOf(stream) {
  const out = await client.send(new ListShardsCommand({ StreamName: stream }));
  return out.Shards;
}

async function main() {
  for (const step of plan.steps) {
    if (step.create) {
      await client.send(new CreateStreamCommand({ StreamName: step.create, ShardCount: step.shards }));
      await waitActive(step.create);
    } else if (step.put_records) {
      for (let at = 0; at < step.records.length; at += 500) {
        const chunk = step.records.slice(at, at + 500);
        const r = await client.send(new PutRecordsCommand({
          StreamName: step.put_records,
          Records: chunk.map(x => ({ Data: Buffer.from(x.data, "utf8"), PartitionKey: x.key })) }));
        if (r.FailedRecordCount) throw new Error(r.FailedRecordCount + " records failed");
        for (const rec of r.Records) console.log(JSON.stringify({ shard: rec.ShardId, sequence: rec.SequenceNumber }));
      }
    } else if (step.put_record) {
      for (const x of step.records) {
        const r = await client.send(new PutRecordCommand({ StreamName: step.put_record, Data: Buffer.from(x.data, "utf8"),
                                                           PartitionKey: x.key }));
        console.log(JSON.stringify({ shard: r.ShardId, sequence: r.SequenceNumber }));
      }
    } else if (step.put_avro) {
      const registry = new SchemaRegistry({ host: step.registry });
      const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(step.schema) },
                                             { subject: step.subject });
      const encoded = [];
      for (const x of step.records) encoded.push({ Data: await registry.encode(id, x.value), PartitionKey: x.key });
      const r = await client.send(new PutRecordsCommand({ StreamName: step.put_avro, Records: encoded }));
      if (r.FailedRecordCount) throw new Error(r.FailedRecordCount + " records failed");
      for (const rec of r.Records) console.log(JSON.stringify({ shard: rec.ShardId, sequence: rec.SequenceNumber }));
    } else if (step.split) {
      const shard = (await shardsOf(step.split)).find(s => s.ShardId === step.shard);
      const lo = BigInt(shard.HashKeyRange.StartingHashKey), hi = BigInt(shard.HashKeyRange.EndingHashKey);
      await client.send(new SplitShardCommand({ StreamName: step.split, ShardToSplit: step.shard,
                                                NewStartingHashKey: ((lo + hi) / 2n + 1n).toString() }));
      await waitActive(step.split);
      console.log(JSON.stringify({ shards: await shardsOf(step.split) }));
    } else if (step.merge) {
      await client.send(new MergeShardsCommand({ StreamName: step.merge, ShardToMerge: step.shard,
                                                 AdjacentShardToMerge: step.adjacent }));
      await waitActive(step.merge);
      console.log(JSON.stringify({ shards: await shardsOf(step.merge) }));
    } else if (step.delete) {
      await client.send(new DeleteStreamCommand({ StreamName: step.delete }));
      await waitActive(step.delete, true);
    } else if (step.sleep_ms) {
      await new Promise(r => setTimeout(r, step.sleep_ms));
    } else {
      throw new Error("unknown step " + JSON.stringify(step));
    }
  }
}

main().catch(e => { console.error(e.stack || String(e)); process.exit(1); });
