import { describe, expect, test } from "bun:test";
import { BuiltinEmbedder } from "../../src/embed/builtin/builtin-embedder.ts";
import { createEmbedder } from "../../src/embed/create-embedder.ts";

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("builtin embedder", () => {
  test("is the config default, with an id that names version and dimension", async () => {
    const e = await createEmbedder({
      provider: "builtin",
      model: "",
      base_url: "",
      dimensions: 0,
      batch_size: 64,
      timeout_ms: 1000,
      max_retries: 0,
    });
    expect(e.id).toBe("builtin:v1:384");
    expect(e.dim).toBe(384);
    expect(e.local).toBe(true);
  });

  test("is deterministic and unit length, one vector per input in order", async () => {
    const e = await BuiltinEmbedder.create();
    const texts = ["The server crashed at 3am", "", "数据库服务器", "the server crashed at 3am!"];
    const a = await e.embed(texts);
    const b = await (await BuiltinEmbedder.create()).embed(texts.slice().reverse());
    expect(a).toHaveLength(4);
    for (const [i, v] of a.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(384);
      expect(Array.from(v)).toEqual(Array.from(b[3 - i]!));
    }
    expect(Math.abs(cos(a[0]!, a[0]!) - 1)).toBeLessThan(1e-5);
    expect(a[1]!.every((x) => x === 0)).toBe(true);
    expect(cos(a[0]!, a[3]!)).toBeGreaterThan(0.99);
  });

  test("English: related words score above unrelated text", async () => {
    const e = await BuiltinEmbedder.create();
    const [q, syn, other] = await e.embed([
      "my dog is sick",
      "the puppy has been ill since yesterday",
      "quarterly revenue forecast for the board",
    ]);
    expect(cos(q!, syn!)).toBeGreaterThan(cos(q!, other!) + 0.1);
  });

  test("CJK: shared characters and words make texts similar", async () => {
    const e = await BuiltinEmbedder.create();
    const [q, zhHit, zhMiss, jaHit, jaMiss] = await e.embed([
      "数据库服务器崩溃了",
      "昨晚数据库服务器又崩溃，需要重启",
      "我们明天去公园散步吧",
      "データベースのサーバーが落ちた",
      "明日は雨が降るでしょう",
    ]);
    expect(cos(q!, zhHit!)).toBeGreaterThan(0.3);
    expect(cos(q!, zhHit!)).toBeGreaterThan(cos(q!, zhMiss!) + 0.2);
    const [jq] = await e.embed(["サーバーが落ちた"]);
    expect(cos(jq!, jaHit!)).toBeGreaterThan(cos(jq!, jaMiss!) + 0.2);
  });

  test("honours an aborted signal", async () => {
    const e = await BuiltinEmbedder.create();
    const ac = new AbortController();
    ac.abort();
    await expect(e.embed(["x"], ac.signal)).rejects.toThrow();
  });
});
