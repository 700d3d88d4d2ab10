// Reads a table through its Iceberg metadata with icebird (an Iceberg reader on the hyparquet
// Parquet reader, neither sharing code with lakestream) and compares its rows with the rows
// lakestream's own reader gave: `lakestream query --format json` output in a file. The table is
// found as a path-based (Hadoop catalog) reader finds it: metadata/version-hint.text, then
// v<N>.metadata.json, its manifest list and manifests (Avro), then the Parquet files they name.
// icebird fetches URLs: file:// URLs are answered from the disk here (GET with Range, HEAD).
//
//   node tests/interop/read_iceberg.mjs TABLE_FOLDER EXPECTED_JSON_LINES
// Prints the rows read (one JSON object per line, normalized) after "rows:", then "same" or
// the differences; exit status 0 only when the rows are the same multiset.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const deps = path.join(here, '..', '..', '.deps', 'interop', 'node_modules');
let icebird;
try {
  // An ES module only: its entry point from its package.json.
  const pkg = JSON.parse(fs.readFileSync(path.join(deps, 'icebird', 'package.json'), 'utf8'));
  const entry = pkg.exports['.'].import || pkg.exports['.'].default || pkg.exports['.'];
  icebird = await import(pathToFileURL(path.join(deps, 'icebird', typeof entry === 'string' ? entry : entry.default)).href);
} catch (e) {
  console.error(`cannot load icebird from ${deps} (${String(e.message).split('\n')[0]}); run scripts/setup`);
  process.exit(2);
}

// fetch for file:// URLs, as a web server would answer: the bytes, a Range, a HEAD's length.
const webFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = typeof input === 'string' ? input : input.url;
  if (!url.startsWith('file://')) return webFetch(input, init);
  const file = fileURLToPath(url);
  if (!fs.existsSync(file)) return new Response('not found', { status: 404, statusText: 'Not Found' });
  const size = fs.statSync(file).size;
  const method = (init.method || 'GET').toUpperCase();
  if (method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
  const range = new Headers(init.headers || {}).get('range');
  let bytes = fs.readFileSync(file);
  let status = 200;
  if (range) {
    const [, from, to] = /bytes=(\d*)-(\d*)/.exec(range);
    const start = from === '' ? size - Number(to) : Number(from);
    const end = from === '' || to === '' ? size - 1 : Math.min(Number(to), size - 1);
    bytes = bytes.subarray(start, end + 1);
    status = 206;
  }
  return new Response(bytes, { status, headers: { 'content-length': String(bytes.length) } });
};

// One spelling per value, whichever reader gave it: timestamps and dates as ISO instants to the
// millisecond (hyparquet's Dates hold no more), numbers by value, binary as hex.
function normal(value) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (typeof value === 'string') {
    const stamp = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d:\d\d)(\.\d+)?)?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(value);
    if (stamp) {
      const fraction = (stamp[3] || '.000').padEnd(4, '0').slice(0, 4);
      let zone = stamp[4] || 'Z';
      if (/^[+-]\d\d$/.test(zone)) zone += ':00';
      return new Date(`${stamp[1]}T${stamp[2] || '00:00:00'}${fraction}${zone}`).toISOString();
    }
    if (/^-?\d+(\.\d+)?$/.test(value)) return normal(Number(value));
    return value;
  }
  return JSON.stringify(value);
}

function normalRow(row) {
  const out = {};
  for (const key of Object.keys(row).sort()) out[key] = normal(row[key]);
  return JSON.stringify(out);
}

const [table, expectedFile] = process.argv.slice(2);
if (!table || !expectedFile) {
  console.error('usage: node read_iceberg.mjs TABLE_FOLDER EXPECTED_JSON_LINES');
  process.exit(2);
}
const tableUrl = pathToFileURL(path.resolve(table)).href;
let rows;
try {
  rows = await icebird.icebergRead({ tableUrl });
} catch (e) {
  console.log(`icebird could not read ${table}: ${e.message}`);
  process.exit(1);
}
const expected = fs.readFileSync(expectedFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const got = rows.map(normalRow).sort();
const want = expected.map(normalRow).sort();
console.log('rows:');
for (const row of got) console.log(row);
const missing = [...want], extra = [];
for (const row of got) {
  const at = missing.indexOf(row);
  if (at >= 0) missing.splice(at, 1);
  else extra.push(row);
}
if (missing.length === 0 && extra.length === 0) {
  console.log(`same: ${got.length} rows`);
  process.exit(0);
}
for (const row of missing) console.log(`missing from icebird's read: ${row}`);
for (const row of extra) console.log(`only in icebird's read: ${row}`);
process.exit(1);
