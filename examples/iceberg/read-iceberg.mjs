// Reads a table through its Iceberg metadata alone, as any Iceberg reader finds a table by its
// path: metadata/version-hint.text, v<N>.metadata.json, the manifest list and manifests, then the
// Parquet files. The reader is icebird (npm install icebird; or NODE_PATH naming a node_modules
// that has it). Prints the rows as CSV, sorted, with the columns given.
//   node read-iceberg.mjs TABLE_FOLDER COLUMN...
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

async function loadIcebird() {
  try {
    return await import('icebird');
  } catch {
    for (const dir of (process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean)) {
      const pkgFile = path.join(dir, 'icebird', 'package.json');
      if (!fs.existsSync(pkgFile)) continue;
      const entry = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).exports['.'].import;
      return import(pathToFileURL(path.join(dir, 'icebird', entry)).href);
    }
  }
  console.error('icebird is not installed: run `npm install icebird` here, or set NODE_PATH');
  process.exit(2);
}

// icebird fetches URLs; a table on the local disk is answered from it (GET, with a Range).
const webFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = typeof input === 'string' ? input : input.url;
  if (!url.startsWith('file://')) return webFetch(input, init);
  const file = fileURLToPath(url);
  if (!fs.existsSync(file)) return new Response('not found', { status: 404, statusText: 'Not Found' });
  let bytes = fs.readFileSync(file);
  const range = /bytes=(\d+)-(\d*)/.exec(new Headers(init.headers || {}).get('range') || '');
  if (range) bytes = bytes.subarray(Number(range[1]), range[2] === '' ? bytes.length : Number(range[2]) + 1);
  return new Response(init.method === 'HEAD' ? null : bytes, { status: range ? 206 : 200, headers: { 'content-length': String(bytes.length) } });
};

const [table, ...columns] = process.argv.slice(2);
const { icebergRead } = await loadIcebird();
const rows = await icebergRead({ tableUrl: pathToFileURL(path.resolve(table)).href });
const text = (v) => (v instanceof Date ? v.toISOString().slice(0, 16).replace('T', ' ') : String(v));
console.log(columns.join(','));
for (const line of rows.map((r) => columns.map((c) => text(r[c])).join(',')).sort()) console.log(line);
