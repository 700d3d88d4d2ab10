// The interop test: every Delta table under the given folders is checked by the log validator
// (delta_log_validator.js), and every data file and log checkpoint is read by two Parquet readers
// that share no code with lakestream: parquet-wasm (arrow-rs, the Parquet crate of delta-rs and
// delta-kernel-rs) and nodejs-polars. Column types must be what schemaString says, row counts what
// the log's numRecords says. Exit status 1 with the findings when anything is off.
//
//   node tests/interop/read_tables.js [--log-only] FOLDER...   (modules from .deps/interop, see scripts/setup)
// --log-only runs the validator and the checkpoint readers only (for tables of other writers,
// whose data files may use types lakestream never writes, such as Spark's INT96 timestamps).
'use strict';

const fs = require('fs');
const path = require('path');

const modules = path.join(__dirname, '..', '..', '.deps', 'interop', 'node_modules');
const requireFromDeps = require('module').createRequire(path.join(modules, '..', 'package.json'));
const load = (name) => {
  try {
    return requireFromDeps(name);
  } catch (e) {
    console.error(`cannot load ${name} from ${modules} (${e.message.split('\n')[0]}); run scripts/setup`);
    process.exit(2);
  }
};
const parquetWasm = load('parquet-wasm');
const arrow = load('apache-arrow');
const polars = load('nodejs-polars');
const { validateTable } = require('./delta_log_validator.js');

// ---- reader 1: parquet-wasm -> Arrow ------------------------------------------------------

function readArrow(file) {
  return arrow.tableFromIPC(parquetWasm.readParquet(new Uint8Array(fs.readFileSync(file))).intoIPCStream());
}

// Arrow values as plain JSON values (BigInt as Number where exact, else as text).
function plain(value) {
  if (value == null) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof arrow.Vector) return [...value].map(plain);
  if (value instanceof Uint8Array) return Buffer.from(value).toString();
  if (typeof value === 'object') {
    const object = typeof value.toJSON === 'function' ? value.toJSON() : value;
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function readCheckpointArrow(file) {
  const table = readArrow(file);
  const columns = Object.fromEntries(table.schema.fields.map((f) => [f.name, (f.type.children || []).map((c) => c.name)]));
  const rows = [];
  for (const row of table) rows.push(plain(row));
  // A map column comes back as {key: value}; the validator wants partitionValues etc. as objects.
  return { rows, columns };
}

// The Delta type an Arrow type holds, in schemaString's words (nested types as their kind).
function deltaTypeOfArrow(type) {
  const T = arrow.Type;
  switch (type.typeId) {
    case T.Int: return type.isSigned ? { 8: 'byte', 16: 'short', 32: 'integer', 64: 'long' }[type.bitWidth] : 'unsigned';
    case T.Float: return type.precision === arrow.Precision.DOUBLE ? 'double' : 'float';
    case T.Utf8: case T.LargeUtf8: return 'string';
    case T.Binary: case T.LargeBinary: return 'binary';
    case T.Bool: return 'boolean';
    case T.Date: return 'date';
    case T.Timestamp: return type.unit === arrow.TimeUnit.MICROSECOND ? (type.timezone ? 'timestamp' : 'timestamp_ntz')
      : `timestamp in ${arrow.TimeUnit[type.unit]}`;
    case T.Decimal: return `decimal(${type.precision},${type.scale})`;
    case T.Struct: return 'struct';
    case T.List: case T.LargeList: return 'array';
    case T.Map: return 'map';
    default: return String(type);
  }
}

// ---- reader 2: nodejs-polars --------------------------------------------------------------

function readPolars(file) {
  return polars.readParquet(fs.readFileSync(file));
}

function deltaTypeOfPolars(dtype) {
  const text = String(dtype).replace(/^DataType\((.*)\)$/, '$1');
  const simple = { Int8: 'byte', Int16: 'short', Int32: 'integer', Int64: 'long', Float32: 'float', Float64: 'double',
    Bool: 'boolean', String: 'string', Utf8: 'string', Binary: 'binary', Date: 'date' };
  if (simple[text]) return simple[text];
  let m = /^Datetime\((\w+)(?:,\s*(.+))?\)$/.exec(text);
  if (m) return m[1] !== 'us' ? `timestamp in ${m[1]}` : m[2] ? 'timestamp' : 'timestamp_ntz';
  m = /^Decimal\((\d+),\s*(\d+)\)$/.exec(text);
  if (m) return `decimal(${m[1]},${m[2]})`;
  if (text.startsWith('Struct')) return 'struct';
  if (text.startsWith('List')) return 'array';  // polars reads a map as a list of key/value structs
  return text;
}

// nodejs-polars reads binary columns but cannot hand their dtype to JavaScript: it says so instead.
function polarsColumnType(df, name) {
  try {
    return deltaTypeOfPolars(df.getColumn(name).dtype);
  } catch (e) {
    if (/DataType Binary is not supported/.test(e.message)) return 'binary';
    throw e;
  }
}

// The kind schemaString gives a column: primitive name, or struct/array/map.
function deltaKind(type) {
  return typeof type === 'string' ? type.replace(/\s+/g, '') : type.type;
}

// ---- the checks ---------------------------------------------------------------------------

function checkDataFile(tablePath, file, errors) {
  const full = path.join(tablePath, file.path);
  const where = `${path.basename(tablePath)}/${file.path}`;
  // Columns by the name the files use: the physical name under column mapping.
  // Partition columns are in the files only when the table materializes them (read as Iceberg).
  const expected = new Map(file.schema.filter((f) => file.materialized || !file.partitionColumns.includes(f.name)).map((f) => [f.stored || f.name, f.type]));
  const readers = [
    ['parquet-wasm', () => {
      const t = readArrow(full);
      return { rows: t.numRows, columns: t.schema.fields.map((f) => [f.name, deltaTypeOfArrow(f.type)]) };
    }],
    ['polars', () => {
      const df = readPolars(full);
      return { rows: df.height, columns: df.columns.map((n) => [n, polarsColumnType(df, n)]) };
    }],
  ];
  for (const [reader, read] of readers) {
    let got;
    try { got = read(); } catch (e) { errors.push(`${where}: ${reader} cannot read it: ${e.message}`); continue; }
    if (file.numRecords != null && got.rows !== file.numRecords)
      errors.push(`${where}: ${reader} reads ${got.rows} rows, the log's numRecords says ${file.numRecords}`);
    for (const [name, type] of got.columns) {
      if (!expected.has(name)) { errors.push(`${where}: ${reader} finds column ${name}, not a data column of the schema`); continue; }
      const want = deltaKind(expected.get(name)) === 'map' && reader === 'polars' ? 'array' : deltaKind(expected.get(name));
      if (type !== want) errors.push(`${where}: ${reader} reads ${name} as ${type}, the schema says ${want}`);
    }
  }
}

function checkCheckpointWithPolars(file, rows, errors) {
  try {
    const df = readPolars(file);
    if (df.height !== rows) errors.push(`${file}: polars reads ${df.height} rows, parquet-wasm ${rows}`);
    // A v2 checkpoint's sidecar holds only adds and removes.
    const sidecar = path.basename(path.dirname(file)) === '_sidecars';
    for (const column of sidecar ? ['add', 'remove'] : ['add', 'remove', 'metaData', 'protocol', 'txn'])
      if (!df.columns.includes(column)) errors.push(`${file}: polars finds no ${column} column`);
  } catch (e) {
    errors.push(`${file}: polars cannot read it: ${e.message}`);
  }
}

function tablesUnder(folder) {
  if (fs.existsSync(path.join(folder, '_delta_log'))) return [folder];
  return fs.readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => tablesUnder(path.join(folder, e.name)));
}

function main(args) {
  const logOnly = args[0] === '--log-only';
  const folders = logOnly ? args.slice(1) : args;
  let failed = false;
  const tables = folders.flatMap((f) => tablesUnder(path.resolve(f)));
  if (tables.length === 0) { console.error(`no Delta tables under ${folders.join(', ')}`); process.exit(1); }
  for (const table of tables) {
    const checkpointRows = new Map();
    const readCheckpoint = (file) => {
      const read = readCheckpointArrow(file);
      checkpointRows.set(file, read.rows.length);
      return read;
    };
    const result = validateTable(table, readCheckpoint);
    const errors = [...result.errors];
    for (const [file, rows] of checkpointRows) checkCheckpointWithPolars(file, rows, errors);
    const files = new Map();
    for (const file of result.everyAdd || []) if (file) files.set(file.path, file);
    let read = 0;
    for (const file of files.values()) {
      if (logOnly) break;
      if (!fs.existsSync(path.join(table, file.path))) continue;  // vacuumed
      checkDataFile(table, file, errors);
      read++;
    }
    if (errors.length) {
      failed = true;
      console.log(`FAIL ${table}`);
      for (const e of errors.slice(0, 50)) console.log(`  ${e}`);
    } else {
      console.log(`ok ${table}: ${result.versions} versions and ${checkpointRows.size} checkpoints valid` +
        (logOnly ? '' : `; ${read} data files read alike by parquet-wasm and polars`));
    }
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2));
