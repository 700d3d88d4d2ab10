// An independent coder of Delta deletion vectors, on roaring-wasm (CRoaring compiled to
// WebAssembly): the serialized vector is the magic number 1681511377 (int32 LE), the bitmap count
// (int64 LE) and, per high 32 bits of the row indexes, that key (uint32 LE) and a 32-bit Roaring
// bitmap in the portable format (run-optimized, so that all three container kinds occur).
//   node roaring_vectors.js encode IN OUT   IN: [[row, ...], ...]  OUT: ["hex", ...]
//   node roaring_vectors.js decode IN OUT   IN: ["hex", ...]       OUT: [[row, ...], ...]
// Rows are written as decimal strings: they may pass 2^53.
const fs = require("fs");
const roaring = require("roaring-wasm");

const MAGIC = 1681511377;

function encode(rows) {
  const byHigh = new Map();
  for (const text of rows) {
    const row = BigInt(text);
    const high = Number(row >> 32n);
    if (!byHigh.has(high)) byHigh.set(high, []);
    byHigh.get(high).push(Number(row & 0xffffffffn));
  }
  const parts = [];
  const head = Buffer.alloc(12);
  head.writeUInt32LE(MAGIC, 0);
  head.writeBigUInt64LE(BigInt(byHigh.size), 4);
  parts.push(head);
  for (const high of [...byHigh.keys()].sort((a, b) => a - b)) {
    const key = Buffer.alloc(4);
    key.writeUInt32LE(high, 0);
    const bitmap = new roaring.RoaringBitmap32(byHigh.get(high));
    bitmap.runOptimize();
    parts.push(key, Buffer.from(bitmap.serialize("portable")));
    bitmap.dispose();
  }
  return Buffer.concat(parts).toString("hex");
}

function decode(hex) {
  const bytes = Buffer.from(hex, "hex");
  if (bytes.readUInt32LE(0) !== MAGIC) throw new Error("no magic number");
  const count = Number(bytes.readBigUInt64LE(4));
  let at = 12;
  const rows = [];
  for (let i = 0; i < count; i++) {
    const high = BigInt(bytes.readUInt32LE(at));
    at += 4;
    const rest = bytes.subarray(at);
    const bitmap = roaring.RoaringBitmap32.deserialize(rest, "portable");
    at += bitmap.getSerializationSizeInBytes("portable");
    for (const low of bitmap.toArray()) rows.push(((high << 32n) | BigInt(low)).toString());
    bitmap.dispose();
  }
  if (at !== bytes.length) throw new Error(`bytes after the last bitmap: ${bytes.length - at}`);
  return rows;
}

(async () => {
  const [mode, input, output] = process.argv.slice(2);
  await roaring.roaringLibraryInitialize();
  const cases = JSON.parse(fs.readFileSync(input, "utf8"));
  const results = cases.map(mode === "encode" ? encode : decode);
  fs.writeFileSync(output, JSON.stringify(results));
})().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
