// icebird on this machine: the module found, and fetch taught file:// URLs (icebird fetches a
// table's files by URL), answered from the disk as a web server would (GET with a Range, HEAD).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The icebird module: as node resolves it from here, else from a node_modules among `dirs` and
// NODE_PATH's (an ES module, which NODE_PATH alone does not reach). Exits with what to do
// when none has it.
export async function loadIcebird(dirs = []) {
  try {
    return await import('icebird');
  } catch {
    for (const dir of [...dirs, ...(process.env.NODE_PATH || '').split(path.delimiter)].filter(Boolean)) {
      const pkgFile = path.join(dir, 'icebird', 'package.json');
      if (!fs.existsSync(pkgFile)) continue;
      const entry = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).exports['.'].import;
      return import(pathToFileURL(path.join(dir, 'icebird', entry)).href);
    }
  }
  console.error('icebird is not installed: run `npm install icebird` (or scripts/setup in the lakestream tree), or set NODE_PATH');
  process.exit(2);
}

// `copies` maps a table's location (as its metadata names it) to a local copy of its files:
// URLs under it are read from the copy (an s3:// location also in the https form icebird asks for).
export function serveFileUrls(copies = {}) {
  const webFetch = globalThis.fetch;
  const prefixes = [];
  for (const [location, folder] of Object.entries(copies)) {
    prefixes.push([location, folder]);
    const s3 = /^s3a?:\/\/([^/]+)(\/.*)?$/.exec(location);
    if (s3) prefixes.push([`https://${s3[1]}.s3.amazonaws.com${s3[2] || ''}`, folder]);
  }
  globalThis.fetch = async (input, init = {}) => {
    let url = typeof input === 'string' ? input : input.url;
    for (const [prefix, folder] of prefixes)
      if (url.startsWith(prefix)) url = pathToFileURL(folder).href + url.slice(prefix.length);
    if (!url.startsWith('file://')) return webFetch(input, init);
    const file = fileURLToPath(url);
    if (!fs.existsSync(file)) return new Response('not found', { status: 404, statusText: 'Not Found' });
    const size = fs.statSync(file).size;
    if ((init.method || 'GET').toUpperCase() === 'HEAD')
      return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
    let bytes = fs.readFileSync(file);
    const range = /bytes=(\d*)-(\d*)/.exec(new Headers(init.headers || {}).get('range') || '');
    if (range) {
      const start = range[1] === '' ? size - Number(range[2]) : Number(range[1]);
      const end = range[1] === '' || range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
      bytes = bytes.subarray(start, end + 1);
    }
    return new Response(bytes, { status: range ? 206 : 200, headers: { 'content-length': String(bytes.length) } });
  };
}
