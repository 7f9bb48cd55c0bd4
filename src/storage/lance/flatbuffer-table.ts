// A table of a flatbuffer (the metadata of Arrow's IPC format): its fields read in place, by field number.
const utf8 = new TextDecoder();

/** A flatbuffer table at `at` in `v`. */
export class FlatTable {
  constructor(
    readonly v: DataView,
    readonly at: number,
  ) {}
  /** Field `i`'s position, or 0 when absent. */
  field(i: number): number {
    const vtable = this.at - this.v.getInt32(this.at, true);
    const size = this.v.getUint16(vtable, true);
    const slot = 4 + 2 * i;
    if (slot >= size) return 0;
    const off = this.v.getUint16(vtable + slot, true);
    return off === 0 ? 0 : this.at + off;
  }
  /** The position a field's offset points to (a table, vector or string), or 0 when absent. */
  ref(i: number): number {
    const p = this.field(i);
    return p === 0 ? 0 : p + this.v.getUint32(p, true);
  }
  table(i: number): FlatTable | undefined {
    const p = this.ref(i);
    return p === 0 ? undefined : new FlatTable(this.v, p);
  }
  u8(i: number, dflt: number): number {
    const p = this.field(i);
    return p === 0 ? dflt : this.v.getUint8(p);
  }
  i16(i: number, dflt: number): number {
    const p = this.field(i);
    return p === 0 ? dflt : this.v.getInt16(p, true);
  }
  i64(i: number): number {
    const p = this.field(i);
    return p === 0 ? 0 : Number(this.v.getBigInt64(p, true));
  }
  /** A vector's length and the position of its first element. */
  vector(i: number): { n: number; at: number } {
    const p = this.ref(i);
    return p === 0 ? { n: 0, at: 0 } : { n: this.v.getUint32(p, true), at: p + 4 };
  }
  /** Element `k` of a vector of tables. */
  tableAt(at: number, k: number): FlatTable {
    const p = at + 4 * k;
    return new FlatTable(this.v, p + this.v.getUint32(p, true));
  }
  string(i: number): string {
    const p = this.ref(i);
    if (p === 0) return "";
    const n = this.v.getUint32(p, true);
    return utf8.decode(new Uint8Array(this.v.buffer, this.v.byteOffset + p + 4, n));
  }
}
