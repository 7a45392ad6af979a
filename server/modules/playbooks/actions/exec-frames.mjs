// The exec spawner's payload encoding, shared by the console side (./exec-process.ts) and the spawner
// (./exec-spawner.mjs, plain JavaScript started without a loader, hence a .mjs file): a payload is a list of fields,
// each a uint32 BE length and its bytes.

/** A payload of fields (each written as its String()). */
export function fields(...values) {
  const parts = [];
  for (const v of values) {
    const b = Buffer.from(String(v));
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(b.length);
    parts.push(len, b);
  }
  return Buffer.concat(parts);
}

/** A payload's fields as UTF-8 text. */
export function readFields(body) {
  const out = [];
  for (let at = 0; at + 4 <= body.length;) {
    const len = body.readUInt32BE(at);
    out.push(body.toString('utf8', at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}
