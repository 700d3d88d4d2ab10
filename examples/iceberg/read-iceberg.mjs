// Reads a table through its Iceberg metadata alone, as any Iceberg reader finds a table by its
// path: metadata/version-hint.text, v<N>.metadata.json, the manifest list and manifests, then the
// Parquet files. The reader is icebird (npm install icebird; or NODE_PATH naming a node_modules
// that has it). Prints the rows as CSV, sorted, with the columns given.
//   node read-iceberg.mjs TABLE_FOLDER COLUMN...
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { loadIcebird, serveFileUrls } from './icebird-setup.mjs';

serveFileUrls();

const [table, ...columns] = process.argv.slice(2);
const { icebergRead } = await loadIcebird();
const rows = await icebergRead({ tableUrl: pathToFileURL(path.resolve(table)).href });
const text = (v) => (v instanceof Date ? v.toISOString().slice(0, 16).replace('T', ' ') : String(v));
console.log(columns.join(','));
for (const line of rows.map((r) => columns.map((c) => text(r[c])).join(',')).sort()) console.log(line);
