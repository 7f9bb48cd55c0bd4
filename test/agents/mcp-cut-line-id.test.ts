// The id of a stdin line too long to read, told from its ends only where it is surely the request's own.
import { expect, test } from "bun:test";
import { idOfCutLine } from "../../src/mcp/stdio-answers.ts";

const ends = (line: string): [Buffer, Buffer] => [Buffer.from(line.slice(0, 60)), Buffer.from(line.slice(-60))];
const filler = "x".repeat(200);

test("the id first, after jsonrpc, or last before the closing brace; a string id with escapes", () => {
  expect(idOfCutLine(...ends(`{"id":7,"method":"tools/call","params":{"a":"${filler}"}}`))).toBe(7);
  expect(idOfCutLine(...ends(`{"jsonrpc":"2.0","id":"r-1","method":"x","params":{"a":"${filler}"}}\n`))).toBe("r-1");
  expect(idOfCutLine(...ends(`{"method":"x","params":{"a":"${filler}"},"jsonrpc":"2.0","id":12}\r\n`))).toBe(12);
  expect(idOfCutLine(...ends(`{"method":"x","params":{"a":"${filler}"},"id":"a\\"b"}\n`))).toBe('a"b');
});

test("an id inside the params, in a string, in the middle or not whole is no id (null)", () => {
  expect(idOfCutLine(...ends(`{"method":"x","jsonrpc":"2.0","params":{"a":"${filler}","id":3}}`))).toBeNull();
  expect(idOfCutLine(...ends(`{"method":"x","params":{"a":"${filler},\\"id\\":4}"}}`))).toBeNull();
  expect(idOfCutLine(...ends(`{"method":"x","id":5,"params":{"a":"${filler}"}}`))).toBeNull();
  expect(idOfCutLine(...ends(`{"method":"x","params":{"a":"${filler}"},"id":1.5}`))).toBeNull();
});
