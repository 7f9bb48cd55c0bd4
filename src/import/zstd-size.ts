// The size a zstd file declares it decompresses to: the frames' Frame_Content_Size fields summed (RFC 8878 §3.1.1),
// read without decompressing, so a bomb is refused at once. undefined when a frame does not declare its size.

const FRAME_MAGIC = 0xfd2fb528;

export function declaredZstdSize(data: Uint8Array): number | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  let total = 0;
  while (pos + 4 <= data.length) {
    const magic = view.getUint32(pos, true);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // Skippable frame: magic, 4-byte size, content.
      if (pos + 8 > data.length) return undefined;
      pos += 8 + view.getUint32(pos + 4, true);
      continue;
    }
    if (magic !== FRAME_MAGIC || pos + 5 > data.length) return undefined;
    const fhd = data[pos + 4]!;
    const fcsFlag = fhd >> 6;
    const single = (fhd >> 5) & 1;
    const checksum = (fhd >> 2) & 1;
    const didSize = [0, 1, 2, 4][fhd & 3]!;
    const fcsSize = fcsFlag === 0 ? single : [0, 2, 4, 8][fcsFlag]!;
    if (fcsSize === 0) return undefined;
    let p = pos + 5 + (single ? 0 : 1) + didSize;
    if (p + fcsSize > data.length) return undefined;
    let size: number;
    if (fcsSize === 1) size = data[p]!;
    else if (fcsSize === 2) size = view.getUint16(p, true) + 256;
    else if (fcsSize === 4) size = view.getUint32(p, true);
    else size = Number(view.getBigUint64(p, true));
    total += size;
    p += fcsSize;
    // Walk the blocks to the next frame.
    for (;;) {
      if (p + 3 > data.length) return undefined;
      const header = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16);
      const last = header & 1;
      const type = (header >> 1) & 3;
      const blockSize = header >> 3;
      p += 3 + (type === 1 ? 1 : blockSize);
      if (last) break;
    }
    pos = p + (checksum ? 4 : 0);
  }
  return total;
}
