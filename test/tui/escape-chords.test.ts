// Esc followed by a control key in one read (typed while the TUI was busy) reaches blessed as two keys.
import { expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { separateEscapeChords, splitEscapeChords, splitMouseReports } from "../../src/tui/terminal/escape-chords.ts";

const bytes = (s: string) => Buffer.from(s, "latin1");
const text = (parts: Uint8Array[]) => parts.map((p) => Buffer.from(p).toString("latin1"));

test("a chunk is cut before each control byte that follows an Esc, and only there", () => {
  expect(text(splitEscapeChords(bytes("\x1b\x05")))).toEqual(["\x1b", "\x05"]);
  expect(text(splitEscapeChords(bytes("ab\x1b\x05c\x1b\x09")))).toEqual(["ab\x1b", "\x05c\x1b", "\x09"]);
  for (const whole of ["\x1b[A", "\x1bOP", "\x1b\x1b", "\x1bq", "plain", "\x1b[<0;10;5M", "é\x05", "\x1b\x1bq"])
    expect(text(splitEscapeChords(bytes(whole)))).toEqual([whole]);
});

test("a chunk is cut before a printable key after an Esc that is no letter, digit or sequence start", () => {
  expect(text(splitEscapeChords(bytes("\x1b/deploy")))).toEqual(["\x1b", "/deploy"]);
  expect(text(splitEscapeChords(bytes("\x1b?")))).toEqual(["\x1b", "?"]);
  expect(text(splitEscapeChords(bytes("\x1b\x1b/")))).toEqual(["\x1b\x1b", "/"]);
  expect(text(splitEscapeChords(Buffer.from("\x1bé")))).toEqual(["\x1b", Buffer.from("é").toString("latin1")]);
  for (const whole of ["\x1b]11;rgb:0/0/0\x1b\\", "\x1b ", "\x1b\x7f", "\x1b1"])
    expect(text(splitEscapeChords(bytes(whole)))).toEqual([whole]);
});

test("through blessed's key parser: Esc then Ctrl-E arrive as both keys, in order", () => {
  const keys = require("blessed/lib/keys.js") as { emitKeypressEvents(s: EventEmitter): void };
  const input = new EventEmitter() as unknown as NodeJS.ReadStream;
  separateEscapeChords(input);
  keys.emitKeypressEvents(input as unknown as EventEmitter);
  const seen: string[] = [];
  input.on("keypress", (_ch: unknown, k: { name?: string; ctrl?: boolean }) =>
    seen.push(`${k.ctrl ? "C-" : ""}${k.name}`),
  );
  input.emit("data", bytes("\x1b\x05"));
  expect(seen).toEqual(["escape", "C-e"]);
});

test("through blessed's key parser: Esc then / or ? arrive as both keys, in order", () => {
  const keys = require("blessed/lib/keys.js") as { emitKeypressEvents(s: EventEmitter): void };
  const input = new EventEmitter() as unknown as NodeJS.ReadStream;
  separateEscapeChords(input);
  keys.emitKeypressEvents(input as unknown as EventEmitter);
  const seen: string[] = [];
  input.on("keypress", (ch: string | undefined, k: { name?: string } | undefined) => seen.push(k?.name ?? ch ?? ""));
  input.emit("data", bytes("\x1b/"));
  input.emit("data", bytes("\x1b?"));
  expect(seen).toEqual(["escape", "/", "escape", "?"]);
});

test("a chunk is cut around each mouse report, in every encoding blessed reads", () => {
  const x10 = "\x1b[MC+%"; // pointer motion
  const utf = Buffer.from("\x1b[MC\u00c8%").toString("latin1"); // a coordinate past 95: two bytes in UTF-8
  const sgr = "\x1b[<65;70;10M";
  expect(text(splitMouseReports(bytes(`dep${x10}loy${utf}${sgr} x`)))).toEqual(["dep", x10, "loy", utf, sgr, " x"]);
  expect(text(splitMouseReports(bytes("\x1b[64;10;5M\x1b[<0;1;2;3&wq\x1b[I")))).toEqual([
    "\x1b[64;10;5M",
    "\x1b[<0;1;2;3&w",
    "q",
    "\x1b[I",
  ]);
  for (const whole of ["\x1b[A", "plain", sgr, "\x1b[200~x"])
    expect(text(splitMouseReports(bytes(whole)))).toEqual([whole]);
});

test("through blessed's key parser: the keys around mouse reports in one read are all seen", () => {
  const keys = require("blessed/lib/keys.js") as { emitKeypressEvents(s: EventEmitter): void };
  const input = new EventEmitter() as unknown as NodeJS.ReadStream;
  separateEscapeChords(input);
  keys.emitKeypressEvents(input as unknown as EventEmitter);
  const seen: string[] = [];
  input.on("keypress", (ch: string | undefined) => seen.push(ch ?? ""));
  input.emit("data", bytes("de\x1b[MC+%p\x1b[<35;10;4M\x1b[<35;11;4Mloy"));
  expect(seen.join("")).toBe("deploy");
});

test("a chunk is cut between an Esc and the arrow, page or Home/End key after it", () => {
  expect(text(splitEscapeChords(bytes("\x1b\x1b[B")))).toEqual(["\x1b", "\x1b[B"]);
  expect(text(splitEscapeChords(bytes("\x1b\x1bOA")))).toEqual(["\x1b", "\x1bOA"]);
  expect(text(splitEscapeChords(bytes("\x1b\x1b\x1b[6~")))).toEqual(["\x1b\x1b", "\x1b[6~"]);
});

test("through blessed's key parser: Esc then Down, PgDn or Home arrive as both keys, in order", () => {
  const keys = require("blessed/lib/keys.js") as { emitKeypressEvents(s: EventEmitter): void };
  const input = new EventEmitter() as unknown as NodeJS.ReadStream;
  separateEscapeChords(input);
  keys.emitKeypressEvents(input as unknown as EventEmitter);
  const seen: string[] = [];
  input.on("keypress", (_ch: unknown, k: { name?: string }) => seen.push(k.name ?? ""));
  input.emit("data", bytes("\x1b\x1b[B"));
  input.emit("data", bytes("\x1b\x1b[6~"));
  input.emit("data", bytes("\x1b\x1bOH"));
  expect(seen).toEqual(["escape", "down", "escape", "pagedown", "escape", "home"]);
});
