// A validator of Iceberg v2 metadata written from the Iceberg table spec alone (format/spec.md:
// "Table Metadata", "Manifest Lists", "Manifests", "Appendix D: Single-value serialization"),
// sharing no code with lakestream: every table under the given folders that has
// metadata/version-hint.text is checked, each metadata file the hint and the metadata log
// reach. The Avro files are decoded with avsc, the Parquet files read with parquet-wasm (arrow-rs).
//
//   node tests/interop/iceberg_validator.mjs FOLDER...
// Prints one line per finding and exits 1 when there is any; prints what it checked otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..', '.deps');
const load = (folder, name) => {
  try {
    return createRequire(path.join(root, folder, 'package.json'))(name);
  } catch (e) {
    console.error(`cannot load ${name} from ${path.join(root, folder)} (${String(e.message).split('\n')[0]}); run scripts/setup`);
    process.exit(2);
  }
};
const avro = load('npm', 'avsc');
const parquetWasm = load('interop', 'parquet-wasm');
const arrow = load('interop', 'apache-arrow');

const findings = [];
const problem = (where, text) => findings.push(`${where}: ${text}`);
let checked = { tables: 0, metadataFiles: 0, manifests: 0, dataFiles: 0 };

const PRIMITIVES = /^(boolean|int|long|float|double|date|time|timestamp|timestamptz|string|uuid|binary|decimal\(\d+, ?\d+\)|fixed\[\d+\])$/;

function localPath(uri, where) {
  if (!uri.startsWith('file://')) {
    problem(where, `${uri} is not a file:// URI this validator can open`);
    return null;
  }
  return fileURLToPath(uri);
}

// The records of an Avro object container file, and its header's metadata and writer schema.
function readAvro(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.subarray(0, 4).toString('latin1') !== 'Obj\x01') throw new Error('not an Avro object container file');
  return new Promise((resolve, reject) => {
    const records = [];
    let header = null;
    const decoder = new avro.streams.BlockDecoder({ parseHook: (schema) => avro.Type.forSchema(schema, { wrapUnions: false }) });
    decoder.on('metadata', (type, codec, head) => { header = { type, codec, meta: head.meta }; });
    decoder.on('data', (record) => records.push(record));
    decoder.on('end', () => resolve({ records, header }));
    decoder.on('error', reject);
    decoder.end(bytes);
  });
}

// The writer schema's field ids by field name (top level and nested records), to compare with the spec's.
function fieldIds(schemaJson) {
  const ids = {};
  const walk = (type, prefix) => {
    if (Array.isArray(type)) return type.forEach((t) => walk(t, prefix));
    if (type && typeof type === 'object') {
      if (type.type === 'record') for (const f of type.fields) { ids[prefix + f.name] = f['field-id']; walk(f.type, prefix + f.name + '.'); }
      else if (type.type === 'array') walk(type.items, prefix);
    }
  };
  walk(schemaJson, '');
  return ids;
}

const MANIFEST_LIST_IDS = { manifest_path: 500, manifest_length: 501, partition_spec_id: 502, content: 517, sequence_number: 515,
  min_sequence_number: 516, added_snapshot_id: 503, added_files_count: 504, existing_files_count: 505, deleted_files_count: 506,
  added_rows_count: 512, existing_rows_count: 513, deleted_rows_count: 514 };
const MANIFEST_IDS = { status: 0, snapshot_id: 1, sequence_number: 3, file_sequence_number: 4, data_file: 2,
  'data_file.content': 134, 'data_file.file_path': 100, 'data_file.file_format': 101, 'data_file.partition': 102,
  'data_file.record_count': 103, 'data_file.file_size_in_bytes': 104, 'data_file.value_counts': 109,
  'data_file.null_value_counts': 110, 'data_file.lower_bounds': 125, 'data_file.upper_bounds': 128 };

function checkIds(where, ids, expected) {
  for (const [name, id] of Object.entries(expected))
    if (name in ids && ids[name] !== id) problem(where, `field ${name} has field-id ${ids[name]}, the spec's is ${id}`);
  for (const name of ['manifest_path', 'status', 'data_file.file_path', 'data_file.record_count'])
    if (name in expected && !(name in ids)) problem(where, `required field ${name} is missing from the Avro schema`);
}

// A value of Iceberg type `type` from its single-value binary serialization (Appendix D).
function decodeBound(type, bytes) {
  const b = Buffer.from(bytes);
  if (type === 'int' || type === 'date') return b.length === 4 ? BigInt(b.readInt32LE(0)) : undefined;
  if (type === 'long' || type === 'timestamp' || type === 'timestamptz') return b.length === 8 ? b.readBigInt64LE(0) : undefined;
  if (type === 'boolean') return b.length === 1 ? BigInt(b[0]) : undefined;
  if (type === 'string') return b.toString('utf8');
  if (type.startsWith('decimal')) {
    let n = 0n;
    for (const byte of b) n = (n << 8n) | BigInt(byte);
    if (b.length && b[0] & 0x80) n -= 1n << BigInt(8 * b.length);
    return n;
  }
  return undefined;
}

// The file's values as the bounds are compared: integers (days, microseconds, unscaled decimals) as BigInt, strings as themselves.
function comparable(type, value, arrowType) {
  if (value === null || value === undefined) return null;
  if (type === 'string') return String(value);
  if (type === 'boolean') return value ? 1n : 0n;
  if (type === 'date') return BigInt(value instanceof Date ? Math.round(value.getTime() / 86400000) : Math.round(Number(value) / 86400000));
  if (type === 'timestamp' || type === 'timestamptz') {
    if (typeof value === 'bigint') return value;  // the unit's integer
    const unit = arrowType.unit;  // 0 s, 1 ms, 2 us, 3 ns; a number is in ms
    return BigInt(Math.round(Number(value) * 1000)) * (unit === undefined ? 1n : 1n);
  }
  if (type.startsWith('decimal')) {
    if (value && value.length === 4) {  // Decimal128 as four 32-bit words, little-endian
      let n = 0n;
      for (let i = 3; i >= 0; i--) n = (n << 32n) | BigInt(value[i] >>> 0);
      if (n >= 1n << 127n) n -= 1n << 128n;
      return n;
    }
    return undefined;
  }
  return BigInt(value);
}

function readParquet(file) {
  return arrow.tableFromIPC(parquetWasm.readParquet(new Uint8Array(fs.readFileSync(file))).intoIPCStream());
}

// The table's views: the one version-hint.text names must exist; every v<N>.metadata.json
// there is checked (an older view is whole too, until vacuum expires it with its files).
async function checkTable(tableDir) {
  const hintFile = path.join(tableDir, 'metadata', 'version-hint.text');
  const hint = fs.readFileSync(hintFile, 'utf8').trim();
  if (!/^\d+$/.test(hint)) return problem(hintFile, `'${hint}' is not a version number`);
  if (!fs.existsSync(path.join(tableDir, 'metadata', `v${hint}.metadata.json`)))
    return problem(hintFile, `names v${hint}.metadata.json, which does not exist`);
  checked.tables++;
  const number = (name) => Number(name.slice(1, -'.metadata.json'.length));
  const views = fs.readdirSync(path.join(tableDir, 'metadata')).filter((n) => /^v\d+\.metadata\.json$/.test(n))
    .sort((a, b) => number(a) - number(b));
  let previous = null;
  for (const view of views) {
    if (number(view) > Number(hint)) problem(hintFile, `names v${hint}, and ${view} is newer`);
    await checkView(path.join(tableDir, 'metadata', view));
    // A later view has a later sequence number, and a table's views describe one table.
    const m = JSON.parse(fs.readFileSync(path.join(tableDir, 'metadata', view), 'utf8'));
    if (previous && !(m['last-sequence-number'] > previous['last-sequence-number']))
      problem(view, `last-sequence-number ${m['last-sequence-number']} does not follow the earlier view's ${previous['last-sequence-number']}`);
    if (previous && m['table-uuid'] !== previous['table-uuid']) problem(view, 'another table-uuid than the earlier view');
    previous = m;
  }
}

async function checkView(metadataFile) {
  checked.metadataFiles++;
  const m = JSON.parse(fs.readFileSync(metadataFile, 'utf8'));
  const where = metadataFile;
  for (const key of ['format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms', 'last-column-id', 'schemas',
    'current-schema-id', 'partition-specs', 'default-spec-id', 'last-partition-id', 'sort-orders', 'default-sort-order-id'])
    if (!(key in m)) problem(where, `required field ${key} is missing`);
  if (m['format-version'] !== 2) problem(where, `format-version is ${m['format-version']}, not 2`);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(m['table-uuid'] || '')) problem(where, 'table-uuid is not a UUID');
  const schema = (m.schemas || []).find((s) => s['schema-id'] === m['current-schema-id']);
  if (!schema) return problem(where, `current-schema-id ${m['current-schema-id']} names no schema`);
  const byId = new Map();
  for (const field of schema.fields) {
    if (byId.has(field.id)) problem(where, `field id ${field.id} is given to ${byId.get(field.id).name} and ${field.name}`);
    byId.set(field.id, field);
    if (field.id > m['last-column-id']) problem(where, `field ${field.name} has id ${field.id} above last-column-id ${m['last-column-id']}`);
    if (typeof field.type !== 'string' || !PRIMITIVES.test(field.type)) problem(where, `field ${field.name} has type ${JSON.stringify(field.type)}`);
    if (typeof field.required !== 'boolean') problem(where, `field ${field.name} has no required flag`);
  }
  const spec = (m['partition-specs'] || []).find((s) => s['spec-id'] === m['default-spec-id']);
  if (!spec) return problem(where, `default-spec-id ${m['default-spec-id']} names no spec`);
  const identitySources = new Set();
  for (const pf of spec.fields) {
    if (!byId.has(pf['source-id'])) problem(where, `partition field ${pf.name} has source-id ${pf['source-id']}, not a field of the schema`);
    if (pf['field-id'] < 1000 || pf['field-id'] > m['last-partition-id']) problem(where, `partition field ${pf.name} has field-id ${pf['field-id']}`);
    if (pf.transform === 'identity') identitySources.add(pf['source-id']);
  }
  if (m['current-snapshot-id'] === undefined || m['current-snapshot-id'] === -1) return;
  const snapshot = (m.snapshots || []).find((s) => s['snapshot-id'] === m['current-snapshot-id']);
  if (!snapshot) return problem(where, `current-snapshot-id ${m['current-snapshot-id']} names no snapshot`);
  if (!m.refs || !m.refs.main || m.refs.main['snapshot-id'] !== snapshot['snapshot-id']) problem(where, 'refs.main is not the current snapshot');
  if (snapshot['sequence-number'] > m['last-sequence-number']) problem(where, 'the snapshot\'s sequence-number is above last-sequence-number');
  if (!['append', 'replace', 'overwrite', 'delete'].includes((snapshot.summary || {}).operation)) problem(where, `the snapshot's operation is ${JSON.stringify((snapshot.summary || {}).operation)}`);
  if (!m.location) return;
  const listFile = localPath(snapshot['manifest-list'], where);
  if (!listFile) return;
  if (!fs.existsSync(listFile)) return problem(where, `manifest list ${snapshot['manifest-list']} does not exist`);
  const list = await readAvro(listFile);
  checkIds(listFile, fieldIds(JSON.parse(list.header.meta['avro.schema'].toString())), MANIFEST_LIST_IDS);
  let totalRecords = 0n, totalFiles = 0;
  const livePaths = new Set();
  for (const manifest of list.records) {
    const manifestFile = localPath(manifest.manifest_path, listFile);
    if (!manifestFile) continue;
    if (!fs.existsSync(manifestFile)) { problem(listFile, `manifest ${manifest.manifest_path} does not exist`); continue; }
    checked.manifests++;
    if (BigInt(manifest.manifest_length) !== BigInt(fs.statSync(manifestFile).size)) problem(listFile, `manifest_length of ${manifest.manifest_path} is not its size`);
    if (BigInt(manifest.sequence_number) > BigInt(snapshot['sequence-number'])) problem(listFile, 'a manifest\'s sequence_number is above its snapshot\'s');
    if (BigInt(manifest.min_sequence_number) > BigInt(manifest.sequence_number)) problem(listFile, 'min_sequence_number is above sequence_number');
    const read = await readAvro(manifestFile);
    const meta = Object.fromEntries(Object.entries(read.header.meta).map(([k, v]) => [k, v.toString()]));
    for (const key of ['schema', 'partition-spec', 'format-version', 'content'])
      if (!(key in meta)) problem(manifestFile, `the header lacks ${key}`);
    if (meta['format-version'] !== '2') problem(manifestFile, `format-version is ${meta['format-version']}`);
    checkIds(manifestFile, fieldIds(JSON.parse(meta['avro.schema'])), MANIFEST_IDS);
    let added = 0, existing = 0;
    for (const entry of read.records) {
      const e = `${manifestFile}: ${entry.data_file.file_path}`;
      if (![0, 1, 2].includes(entry.status)) problem(e, `status ${entry.status}`);
      if (entry.status === 2) continue;
      entry.status === 1 ? added++ : existing++;
      const sequence = entry.sequence_number ?? manifest.sequence_number;
      if (entry.status !== 1 && (entry.sequence_number == null || entry.file_sequence_number == null))
        problem(e, 'an existing file without its sequence numbers');
      if (BigInt(sequence) > BigInt(manifest.sequence_number)) problem(e, 'a data sequence number above its manifest\'s');
      if (entry.status === 1 && entry.snapshot_id != null && BigInt(entry.snapshot_id) !== BigInt(snapshot['snapshot-id']))
        problem(e, 'added by another snapshot than the one whose manifest adds it');
      const df = entry.data_file;
      if (df.content !== 0) problem(e, `content ${df.content} in a data manifest`);
      if (df.file_format !== 'PARQUET') problem(e, `file_format ${df.file_format}`);
      if (livePaths.has(df.file_path)) problem(e, 'listed live twice');
      livePaths.add(df.file_path);
      const file = localPath(df.file_path, e);
      if (!file) continue;
      if (!fs.existsSync(file)) { problem(e, 'does not exist'); continue; }
      checked.dataFiles++;
      if (BigInt(df.file_size_in_bytes) !== BigInt(fs.statSync(file).size)) problem(e, 'file_size_in_bytes is not its size');
      for (const pf of spec.fields) if (!(pf.name in df.partition)) problem(e, `no partition value for ${pf.name}`);
      const table = readParquet(file);
      totalRecords += BigInt(df.record_count);
      totalFiles++;
      if (BigInt(df.record_count) !== BigInt(table.numRows)) problem(e, `record_count ${df.record_count}, the file has ${table.numRows} rows`);
      // Columns by Parquet field id: each must be a schema field. A field a file lacks (added
      // after it was written) reads as null, so it must be optional, or an identity partition's
      // source (read from the partition values).
      const columnById = new Map();
      table.schema.fields.forEach((f, i) => {
        const id = f.metadata.get('PARQUET:field_id');
        if (id === undefined) return problem(e, `column ${f.name} has no field id`);
        if (!byId.has(Number(id))) problem(e, `column ${f.name} has field id ${id}, not a field of the schema`);
        columnById.set(Number(id), { vector: table.getChildAt(i), type: f.type });
      });
      for (const [id, field] of byId)
        if (!columnById.has(id) && !identitySources.has(id) && field.required) problem(e, `required field ${field.name} (id ${id}) is not in the file`);
      // Statistics against the file's values.
      const nulls = new Map((df.null_value_counts || []).map((kv) => [kv.key, BigInt(kv.value)]));
      const lower = new Map((df.lower_bounds || []).map((kv) => [kv.key, kv.value]));
      const upper = new Map((df.upper_bounds || []).map((kv) => [kv.key, kv.value]));
      for (const [id, { vector, type }] of columnById) {
        const field = byId.get(id);
        if (!field) continue;
        let n = 0n, min = null, max = null;
        for (let r = 0; r < vector.length; r++) {
          const v = comparable(field.type, vector.get(r), type);
          if (v === null) { n++; continue; }
          if (v === undefined) { min = max = undefined; break; }
          if (min === null || v < min) min = v;
          if (max === null || v > max) max = v;
        }
        if (nulls.has(id) && nulls.get(id) !== n) problem(e, `null_value_counts of ${field.name} is ${nulls.get(id)}, the file has ${n}`);
        if (field.required && n > 0n) problem(e, `required field ${field.name} has nulls`);
        if (min === undefined) continue;  // a type this validator does not compare
        if (lower.has(id)) {
          const bound = decodeBound(field.type, lower.get(id));
          if (bound === undefined) problem(e, `lower bound of ${field.name} does not decode as ${field.type}`);
          else if (min !== null && bound > min) problem(e, `lower bound of ${field.name} ${bound} is above the file's minimum ${min}`);
        }
        if (upper.has(id)) {
          const bound = decodeBound(field.type, upper.get(id));
          if (bound === undefined) problem(e, `upper bound of ${field.name} does not decode as ${field.type}`);
          else if (max !== null && bound < max) problem(e, `upper bound of ${field.name} ${bound} is below the file's maximum ${max}`);
        }
      }
    }
    if (added !== manifest.added_files_count || existing !== manifest.existing_files_count)
      problem(listFile, `counts ${manifest.added_files_count} added and ${manifest.existing_files_count} existing files, the manifest has ${added} and ${existing}`);
  }
  const summary = snapshot.summary || {};
  if ('total-records' in summary && BigInt(summary['total-records']) !== totalRecords) problem(where, `total-records ${summary['total-records']}, the manifests hold ${totalRecords}`);
  if ('total-data-files' in summary && Number(summary['total-data-files']) !== totalFiles) problem(where, `total-data-files ${summary['total-data-files']}, the manifests hold ${totalFiles}`);
}

function tablesUnder(folder) {
  const found = [];
  const walk = (dir) => {
    if (fs.existsSync(path.join(dir, 'metadata', 'version-hint.text'))) found.push(dir);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory() && entry.name !== 'metadata' && entry.name !== '_delta_log') walk(path.join(dir, entry.name));
  };
  walk(folder);
  return found;
}

const folders = process.argv.slice(2);
if (folders.length === 0) { console.error('usage: node iceberg_validator.mjs FOLDER...'); process.exit(2); }
for (const folder of folders)
  for (const table of tablesUnder(folder)) {
    try { await checkTable(table); } catch (e) { problem(table, `cannot be checked: ${e.stack || e.message}`); }
  }
if (checked.tables === 0) problem(folders.join(' '), 'no table with Iceberg metadata');
for (const finding of findings) console.log(finding);
if (findings.length) process.exit(1);
console.log(`iceberg metadata valid: ${checked.tables} tables, ${checked.metadataFiles} views, ${checked.manifests} manifests, ${checked.dataFiles} data files`);
