// The vector search's own Arrow IPC reader against apache-arrow's, on buffers of both IPC formats, and its fallbacks.
import { describe, expect, test } from "bun:test";
import {
  Dictionary,
  Float64,
  Int32,
  LargeUtf8,
  makeVector,
  type RecordBatch,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { readResultColumns, resultColumns } from "../../src/storage/lance/search-result-ipc.ts";

/** apache-arrow's reading of the same buffers, in the reader's shape. */
function expected(buffers: Uint8Array[]) {
  const tables = buffers.map((b) => tableFromIPC(b));
  const strings = new Map<string, (string | null)[]>();
  const numbers = new Map<string, number[]>();
  for (const f of tables[0]!.schema.fields) {
    const values = tables.flatMap((t) => Array.from(t.getChild(f.name)!.toArray() as ArrayLike<unknown>));
    if (typeof values.find((x) => x !== null) === "number")
      numbers.set(
        f.name,
        values.map((x) => (x === null ? Number.NaN : (x as number))),
      );
    else strings.set(f.name, values as (string | null)[]);
  }
  return { length: tables.reduce((n, t) => n + t.numRows, 0), strings, numbers };
}

function actual(buffers: Uint8Array[]) {
  const got = readResultColumns(buffers);
  if (!got) return undefined;
  return {
    length: got.length,
    strings: got.strings,
    numbers: new Map([...got.numbers].map(([k, v]) => [k, Array.from(v)])),
  };
}

const ids = ["a", "bé", "", "日本語の行", "x".repeat(300), "emoji 🙂", "q'uote"];
const distances = [0.5, 0.25, 1, 0, 1.5, 0.125, 2.75];

function table(n = ids.length, offset = 0): Table {
  return new Table({
    id: vectorFromArray(ids.slice(offset, offset + n), new Utf8()),
    session: vectorFromArray(
      ids.slice(offset, offset + n).map((s) => `s-${s}`),
      new LargeUtf8(),
    ),
    _distance: makeVector(new Float32Array(distances.slice(offset, offset + n))),
    wide: makeVector(new Float64Array(distances.slice(offset, offset + n).map((d) => d / 3))),
  });
}

describe("search result IPC reader", () => {
  for (const format of ["file", "stream"] as const) {
    test(`${format} format: strings, large strings, float32 and float64 columns read as apache-arrow reads them`, () => {
      const buffers = [tableToIPC(table(), format)];
      const got = actual(buffers);
      expect(got).toBeDefined();
      expect(got).toEqual(expected(buffers));
      expect(got!.strings.get("id")).toEqual(ids);
      expect(got!.numbers.get("_distance")).toEqual(distances);
    });

    test(`${format} format: several batches in one buffer, several buffers, and an empty result`, () => {
      const a = table(3, 0);
      const b = table(4, 3);
      const twoBatches = new Table([...a.batches, ...b.batches] as RecordBatch[]);
      const buffers = [tableToIPC(twoBatches, format), tableToIPC(table(2, 1), format)];
      expect(actual(buffers)).toEqual(expected(buffers));
      expect(actual(buffers)!.length).toBe(9);
      const empty = actual([tableToIPC(table(0), format)])!;
      expect(empty.length).toBe(0);
      expect(empty.strings.get("id") ?? []).toEqual([]);
      expect(actual([])).toEqual({ length: 0, strings: new Map(), numbers: new Map() });
    });

    test(`${format} format: a buffer that starts inside a larger one (as a Node Buffer from a pool may)`, () => {
      const own = tableToIPC(table(), format);
      const pool = new Uint8Array(own.length + 13);
      pool.set(own, 5);
      const inside = pool.subarray(5, 5 + own.length);
      expect(actual([inside])).toEqual(expected([own]));
    });

    test(`${format} format: nulls in string and float columns`, () => {
      const t = new Table({
        id: vectorFromArray(["a", null, "c"], new Utf8()),
        _distance: vectorFromArray([0.5, 0.75, null], new Float64()),
      });
      const buffers = [tableToIPC(t, format)];
      const got = actual(buffers)!;
      expect(got.strings.get("id")).toEqual(["a", null, "c"]);
      expect(got.numbers.get("_distance")!.slice(0, 2)).toEqual([0.5, 0.75]);
      expect(Number.isNaN(got.numbers.get("_distance")![2])).toBe(true);
    });

    test(`${format} format: other column types and dictionaries are left to apache-arrow`, () => {
      const int64 = new Table({ id: vectorFromArray(["a"], new Utf8()), seq: makeVector(new BigInt64Array([1n])) });
      expect(readResultColumns([tableToIPC(int64, format)])).toBeUndefined();
      const dict = new Table({ id: vectorFromArray(["a", "b", "a"], new Dictionary(new Utf8(), new Int32())) });
      expect(readResultColumns([tableToIPC(dict, format)])).toBeUndefined();
    });
  }

  test("buffers of different schemas, and cut buffers, are left to apache-arrow", () => {
    const other = new Table({ id: vectorFromArray(["z"], new Utf8()) });
    expect(readResultColumns([tableToIPC(table(), "file"), tableToIPC(other, "file")])).toBeUndefined();
    const whole = tableToIPC(table(), "stream");
    expect(readResultColumns([whole.subarray(0, whole.length - 40)])).toBeUndefined();
  });

  test("resultColumns: the native buffers when the query hands them out, apache-arrow's reading when this reader cannot, toArrow() without them", async () => {
    const plain = table();
    const native = (buffers: Uint8Array[]) => ({
      toArrow: () => Promise.reject(new Error("not used")),
      nativeExecute: async () => {
        const rest = [...buffers];
        return { next: async () => rest.shift() ?? null };
      },
    });
    const viaNative = await resultColumns(native([tableToIPC(plain, "file")]), () => {
      throw new Error("not used");
    });
    expect(viaNative.strings.get("id")).toEqual(ids);

    const seqs = new Table({
      id: vectorFromArray(["a", "b"], new Utf8()),
      seq: makeVector(new BigInt64Array([1n, 2n])),
    });
    let decoded = 0;
    const viaApacheArrow = await resultColumns(native([tableToIPC(seqs, "file")]), async () => (b) => {
      decoded++;
      return tableFromIPC(b);
    });
    expect(decoded).toBe(1);
    expect(viaApacheArrow.length).toBe(2);
    expect(viaApacheArrow.strings.get("id")).toEqual(["a", "b"]);
    expect(viaApacheArrow.numbers.has("seq")).toBe(false);

    const viaToArrow = await resultColumns({ toArrow: async () => plain }, () => {
      throw new Error("not used");
    });
    expect(viaToArrow.strings.get("id")).toEqual(ids);
    expect(Array.from(viaToArrow.numbers.get("_distance")!)).toEqual(distances);
  });
});
