// A scripted fake of POST /v1/embeddings on 127.0.0.1 (port 0): each request takes the next reply.
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A raw body, or a function of the parsed request giving the JSON body. */
  body?: string | ((req: { input: string[]; model: string; dimensions?: number }) => unknown);
}

export interface SeenRequest {
  path: string;
  headers: Headers;
  json: Record<string, unknown>;
}

export function vectorFor(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 7 + i) % dim]! += 1;
  return v;
}

export function okBody(dim: number) {
  return (req: { input: string[] }) => ({
    object: "list",
    data: req.input.map((t, index) => ({ object: "embedding", index, embedding: vectorFor(t, dim) })),
    model: "fake",
    usage: { prompt_tokens: 1, total_tokens: 1 },
  });
}

export function startFakeEmbeddings(replies: FakeReply[], fallback: FakeReply = { body: okBody(8) }) {
  const seen: SeenRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const json = (await request.json()) as Record<string, unknown>;
      seen.push({ path: new URL(request.url).pathname, headers: request.headers, json });
      const r = replies.shift() ?? fallback;
      const body = typeof r.body === "function" ? JSON.stringify(r.body(json as never)) : (r.body ?? "");
      return new Response(body, { status: r.status ?? 200, headers: { "content-type": "application/json", ...r.headers } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
}
