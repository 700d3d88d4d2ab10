// Reads a table through its Iceberg metadata with icebird (an Iceberg reader on the hyparquet
// Parquet reader, neither sharing code with lakestream) and compares its rows with the rows
// lakestream's own reader gave: `lakestream query --format json` output in a file. The table is
// found as a path-based (Hadoop catalog) reader finds it: metadata/version-hint.text, then
// v<N>.metadata.json, its manifest list and manifests (Avro), then the Parquet files they name.
//
//   node tests/interop/read_iceberg.mjs TABLE_FOLDER EXPECTED_JSON_LINES [LOCATION]
// LOCATION: the table's location on an object store, of which TABLE_FOLDER is a copy: the URLs
// its metadata names under it are read from the copy.
// Prints the rows read (one JSON object per line, normalized) after "rows:", then "same" or
// the differences; exit status 0 only when the rows are the same multiset.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { loadIcebird, serveFileUrls } from '../../examples/iceberg/icebird-setup.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const deps = path.join(here, '..', '..', '.deps', 'interop', 'node_modules');
const icebird = await loadIcebird([deps]);

// icebird fetches URLs; file:// ones are answered from the disk (the example's module).
const [table, expectedFile, location] = process.argv.slice(2);
serveFileUrls(location ? { [location]: path.resolve(table) } : {});

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
