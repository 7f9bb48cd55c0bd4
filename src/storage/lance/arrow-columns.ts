// Vector rows to and from Arrow column by column: one typed array per column and one Float32Array for all
// the vectors of a batch, no per-row object or per-element JS array on the way (copies of 1M rows).
import type { Data, DataType, FixedSizeList, Int, RecordBatch, Schema, Struct, Table } from "apache-arrow";
import type { loadLanceDb } from "./load-lancedb.ts";

type Arrow = Awaited<ReturnType<typeof loadLanceDb>>["arrow"];

/** A column's values: strings, int64 as bigints, or the vectors (each `dim` long). */
export type ColumnValues = readonly string[] | BigInt64Array | readonly Float32Array[];

/**
 * A table of `schema` from columns by field name (every field must be given). The schema LanceDB hands out
 * comes from its own copy of the Arrow module, so the types are rebuilt here from their type ids.
 */
export function arrowTable(arrow: Arrow, schema: Schema, length: number, columns: Record<string, ColumnValues>): Table {
  const fields = schema.fields.map((f) => new arrow.Field(f.name, localType(arrow, f.type), f.nullable));
  const children = fields.map((f) => {
    const values = columns[f.name];
    if (values === undefined) throw new Error(`arrowTable: no values for the column ${f.name}`);
    if (f.type instanceof arrow.FixedSizeList) {
      const dim = f.type.listSize;
      const flat = new Float32Array(length * dim);
      (values as readonly Float32Array[]).forEach((v, i) => flat.set(v, i * dim));
      const child = arrow.makeData({ type: new arrow.Float32(), length: length * dim, nullCount: 0, data: flat });
      return arrow.makeData({ type: f.type, length, nullCount: 0, child });
    }
    if (f.type instanceof arrow.Int64)
      return arrow.makeData({ type: f.type, length, nullCount: 0, data: values as BigInt64Array });
    return utf8Data(arrow, values as readonly string[]);
  });
  const local = new arrow.Schema(fields, schema.metadata);
  const data = arrow.makeData({ type: new arrow.Struct(fields), length, nullCount: 0, children });
  return new arrow.Table(local, new arrow.RecordBatch(local, data as Data<Struct>));
}

/** A Utf8 column from its strings: one encoded buffer and its offsets (the generic builder is ~50x slower). */
function utf8Data(arrow: Arrow, values: readonly string[]): Data {
  const encoder = new TextEncoder();
  const offsets = new Int32Array(values.length + 1);
  let bytes = new Uint8Array(values.reduce((n, v) => n + v.length, 0) * 3);
  let at = 0;
  values.forEach((v, i) => {
    at += encoder.encodeInto(v, bytes.subarray(at)).written;
    offsets[i + 1] = at;
  });
  bytes = bytes.slice(0, at);
  return arrow.makeData({
    type: new arrow.Utf8(),
    length: values.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes,
  });
}

/** Utf8, Int64 and FixedSizeList<Float32>: the only types of the vector tables. */
function localType(arrow: Arrow, type: DataType): DataType {
  if (type.typeId === arrow.Type.Utf8) return new arrow.Utf8();
  if (type.typeId === arrow.Type.Int && (type as Int).bitWidth === 64) return new arrow.Int64();
  if (type.typeId === arrow.Type.FixedSizeList) {
    const list = type as FixedSizeList;
    const item = list.children[0]!;
    return new arrow.FixedSizeList(list.listSize, new arrow.Field(item.name, new arrow.Float32(), item.nullable));
  }
  throw new Error(`arrowTable: unexpected column type ${String(type)}`);
}

/** A string column of a batch as JS strings. */
export function strings(batch: RecordBatch, name: string): string[] {
  return batch.getChild(name)!.toArray() as string[];
}

/** An int64 column of a batch as bigints. */
export function bigints(batch: RecordBatch, name: string): BigInt64Array {
  const col = batch.getChild(name)!;
  const out = col.toArray();
  return out instanceof BigInt64Array ? out : BigInt64Array.from(out as Iterable<bigint>);
}

/** A fixed-size-list float column as one view per row over a copy of the batch's values. */
export function vectors(batch: RecordBatch, name: string): Float32Array[] {
  const col = batch.getChild(name)!;
  const out: Float32Array[] = [];
  for (const d of col.data) {
    const dim = (d.type as FixedSizeList).listSize;
    // A primitive Data's values start at its own first element (Arrow slices the buffer, not an offset).
    const flat = (d.children[0]!.values as Float32Array).slice(0, d.length * dim);
    for (let i = 0; i < d.length; i++) out.push(flat.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}
