// A vector search's result read straight from the Arrow IPC buffers LanceDB hands out: string and float columns
// only, no dictionaries, no body compression; anything else goes through apache-arrow, as LanceDB's toArrow()
// does. Skipping its generic decoding (schema, batches, a table, its columns) saves 0.1-0.3 ms of a 5-7 ms
// search (bench/RESULTS.md).
import type { Table as ArrowTable } from "apache-arrow";
import { FlatTable as Table } from "./flatbuffer-table.ts";

/** The columns of a result: strings and numbers by field name, all of `length` rows. */
export interface ResultColumns {
  length: number;
  strings: Map<string, (string | null)[]>;
  numbers: Map<string, Float64Array>;
}

// Arrow's Message.fbs and Schema.fbs: the union tags and type ids read here.
const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;
const TYPE_FLOATING_POINT = 3;
const TYPE_UTF8 = 5;
const TYPE_LARGE_UTF8 = 20;
const PRECISION_HALF = 0;
const PRECISION_SINGLE = 1;
const PRECISION_DOUBLE = 2;

const utf8 = new TextDecoder();

type FieldKind = "utf8" | "large-utf8" | "float32" | "float64";

/** LanceDB's query: its `nativeExecute` (not in its public API) yields the IPC buffers its toArrow() decodes. */
interface NativeQuery {
  nativeExecute?: () => Promise<{ next(): Promise<Uint8Array | null | undefined> }>;
}

/**
 * A query's result as columns: its IPC buffers read here when LanceDB hands them out, decoded by `fromIpc`
 * (apache-arrow's tableFromIPC, asked for only then) when this reader cannot, and by the query's toArrow() without them.
 */
export async function resultColumns(
  query: { toArrow(): Promise<ArrowTable> },
  fromIpc: () => Promise<(buffer: Uint8Array) => ArrowTable>,
): Promise<ResultColumns> {
  const native = query as NativeQuery;
  if (typeof native.nativeExecute !== "function") return columnsOf([await query.toArrow()]);
  const stream = await native.nativeExecute();
  const buffers: Uint8Array[] = [];
  for (let b = await stream.next(); b; b = await stream.next()) buffers.push(b);
  return readResultColumns(buffers) ?? columnsOf(buffers.map(await fromIpc()));
}

/** The string and float columns of apache-arrow tables of one schema (other columns are left out). */
function columnsOf(tables: readonly ArrowTable[]): ResultColumns {
  const out: ResultColumns = { length: 0, strings: new Map(), numbers: new Map() };
  for (const t of tables) out.length += t.numRows;
  const first = tables[0];
  if (!first) return out;
  for (const field of first.schema.fields) {
    const id = field.type.typeId;
    const values = tables.flatMap((t) => Array.from(t.getChild(field.name)?.toArray() ?? []));
    if (id === TYPE_UTF8 || id === TYPE_LARGE_UTF8) out.strings.set(field.name, values as (string | null)[]);
    else if (id === TYPE_FLOATING_POINT && (field.type as { precision?: number }).precision !== PRECISION_HALF)
      out.numbers.set(
        field.name,
        Float64Array.from(values as (number | null)[], (x) => x ?? Number.NaN),
      );
  }
  return out;
}

/** The kind of a schema field this reader decodes, or undefined. */
function fieldKind(f: Table): FieldKind | undefined {
  if (f.ref(4) !== 0) return undefined; // dictionary-encoded
  if (f.vector(5).n !== 0) return undefined; // nested
  const type = f.u8(2, 0);
  if (type === TYPE_UTF8) return "utf8";
  if (type === TYPE_LARGE_UTF8) return "large-utf8";
  if (type !== TYPE_FLOATING_POINT) return undefined;
  const precision = f.table(3)?.i16(0, 0);
  return precision === PRECISION_SINGLE ? "float32" : precision === PRECISION_DOUBLE ? "float64" : undefined;
}

/**
 * The rows of the IPC buffers (LanceDB hands out the file format: a schema in its footer, which lists the record
 * batches; the stream format is read too), or undefined when one holds anything but string and float columns in
 * uncompressed batches of one schema.
 */
export function readResultColumns(buffers: readonly Uint8Array[]): ResultColumns | undefined {
  try {
    return readAll(buffers);
  } catch (err) {
    // A length or offset past the buffer's end: apache-arrow reads it, or says what is wrong.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

function readAll(buffers: readonly Uint8Array[]): ResultColumns | undefined {
  const out: ResultColumns = { length: 0, strings: new Map(), numbers: new Map() };
  let schema: Field[] | undefined;
  for (const buf of buffers) {
    const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const batches = isFile(buf) ? fileBatches(v, buf) : streamBatches(v, buf);
    if (!batches) return undefined;
    if (schema && !sameSchema(schema, batches.fields)) return undefined;
    schema ??= batches.fields;
    for (const { header, body } of batches.list)
      if (!readBatch(header, batches.fields, buf, body, out)) return undefined;
  }
  return out;
}

interface Field {
  name: string;
  kind: FieldKind;
}

interface Batches {
  fields: Field[];
  /** Each record batch's header and where its body starts. */
  list: { header: Table; body: number }[];
}

const MAGIC = [65, 82, 82, 79, 87, 49]; // "ARROW1"

const isFile = (buf: Uint8Array) =>
  buf.byteLength >= 22 && MAGIC.every((c, i) => buf[i] === c && buf[buf.byteLength - MAGIC.length + i] === c);

/** The file format's footer: the schema and the record batches' blocks (offset, metadata length, body length). */
function fileBatches(v: DataView, buf: Uint8Array): Batches | undefined {
  const footerLength = v.getInt32(buf.byteLength - 10, true);
  const footerAt = buf.byteLength - 10 - footerLength;
  if (footerLength <= 0 || footerAt < 8) return undefined;
  const footer = new Table(v, footerAt + v.getUint32(footerAt, true));
  const schema = footer.table(1);
  const fields = schema && readSchema(schema);
  if (!fields || footer.vector(2).n !== 0) return undefined; // dictionaries
  const blocks = footer.vector(3);
  const list: Batches["list"] = [];
  for (let k = 0; k < blocks.n; k++) {
    const p = blocks.at + 24 * k;
    const offset = Number(v.getBigInt64(p, true));
    const metaLength = v.getInt32(p + 8, true);
    const bodyLength = Number(v.getBigInt64(p + 16, true));
    const body = offset + metaLength;
    if (offset < 8 || metaLength <= 0 || body + bodyLength > footerAt) return undefined;
    const message = messageAt(v, offset)?.message;
    if (!message || message.u8(1, 0) !== HEADER_RECORD_BATCH) return undefined;
    const header = message.table(2);
    if (!header) return undefined;
    list.push({ header, body });
  }
  return { fields, list };
}

/**
 * The message starting at `at` (with or without the continuation marker) and where its body starts; null at the
 * end-of-stream marker, undefined when its length runs past the buffer.
 */
function messageAt(v: DataView, at: number): { message: Table; body: number } | null | undefined {
  let p = at;
  if (v.getInt32(p, true) === -1) p += 4;
  const size = v.getInt32(p, true);
  p += 4;
  if (size === 0) return null;
  if (size < 0 || p + size > v.byteLength) return undefined;
  return { message: new Table(v, p + v.getUint32(p, true)), body: p + size };
}

/** The stream format: a schema message, then record batches, up to the end-of-stream marker or the buffer's end. */
function streamBatches(v: DataView, buf: Uint8Array): Batches | undefined {
  let fields: Field[] | undefined;
  const list: Batches["list"] = [];
  let at = 0;
  while (at + 8 <= buf.byteLength) {
    const m = messageAt(v, at);
    if (m === null) break;
    if (!m) return undefined;
    const { message, body } = m;
    const bodyLength = message.i64(3);
    if (body + bodyLength > buf.byteLength) return undefined;
    const kind = message.u8(1, 0);
    const header = message.table(2);
    if (!header) return undefined;
    if (kind === HEADER_SCHEMA && !fields) {
      fields = readSchema(header);
      if (!fields) return undefined;
    } else if (kind === HEADER_RECORD_BATCH && fields) list.push({ header, body });
    else return undefined;
    at = body + bodyLength;
  }
  return fields && { fields, list };
}

function readSchema(s: Table): Field[] | undefined {
  const { n, at } = s.vector(1);
  const fields: Field[] = [];
  for (let k = 0; k < n; k++) {
    const f = s.tableAt(at, k);
    const kind = fieldKind(f);
    if (!kind) return undefined;
    fields.push({ name: f.string(0), kind });
  }
  return fields;
}

const sameSchema = (a: readonly Field[], b: readonly Field[]) =>
  a.length === b.length && a.every((f, i) => f.name === b[i]!.name && f.kind === b[i]!.kind);

/** Appends one record batch's rows to `out`; false when it is compressed or its layout is not the expected one. */
function readBatch(rb: Table, fields: readonly Field[], buf: Uint8Array, body: number, out: ResultColumns): boolean {
  if (rb.ref(3) !== 0) return false; // body compression
  const v = rb.v;
  const length = rb.i64(0);
  const nodes = rb.vector(1);
  const buffers = rb.vector(2);
  if (nodes.n !== fields.length) return false;
  const bufferAt = (k: number) => {
    const p = buffers.at + 16 * k;
    return { offset: body + Number(v.getBigInt64(p, true)), length: Number(v.getBigInt64(p + 8, true)) };
  };
  let b = 0;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const nodeLength = Number(v.getBigInt64(nodes.at + 16 * i, true));
    const nulls = Number(v.getBigInt64(nodes.at + 16 * i + 8, true));
    if (nodeLength !== length) return false;
    const wide = f.kind === "large-utf8";
    const count = f.kind === "utf8" || wide ? 3 : 2;
    if (b + count > buffers.n) return false;
    const validity = bufferAt(b);
    const isNull = (r: number) =>
      nulls > 0 && validity.length > 0 && (buf[validity.offset + (r >> 3)]! & (1 << (r & 7))) === 0;
    if (f.kind === "float32" || f.kind === "float64") {
      const values = bufferAt(b + 1);
      const width = f.kind === "float32" ? 4 : 8;
      if (values.length < length * width) return false;
      const prev = out.numbers.get(f.name);
      const col = new Float64Array((prev?.length ?? 0) + length);
      if (prev) col.set(prev);
      const base = prev?.length ?? 0;
      for (let r = 0; r < length; r++)
        col[base + r] = isNull(r)
          ? Number.NaN
          : width === 4
            ? v.getFloat32(values.offset + r * 4, true)
            : v.getFloat64(values.offset + r * 8, true);
      out.numbers.set(f.name, col);
    } else {
      const offsets = bufferAt(b + 1);
      const data = bufferAt(b + 2);
      const offsetAt = (r: number) =>
        wide ? Number(v.getBigInt64(offsets.offset + 8 * r, true)) : v.getInt32(offsets.offset + 4 * r, true);
      if (offsets.length < (length + 1) * (wide ? 8 : 4)) return false;
      const col = out.strings.get(f.name) ?? [];
      for (let r = 0; r < length; r++) {
        if (isNull(r)) {
          col.push(null);
          continue;
        }
        const s = offsetAt(r);
        const e = offsetAt(r + 1);
        if (s < 0 || e < s || e > data.length) return false;
        col.push(utf8.decode(buf.subarray(data.offset + s, data.offset + e)));
      }
      out.strings.set(f.name, col);
    }
    b += count;
  }
  out.length += length;
  return true;
}
