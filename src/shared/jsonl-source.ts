// The source `import jsonl` gives a session it creates whose line names none (a session made by `add`, exported):
// an imported session waits for [import] summarize = true, as every importer's does. Export leaves it out, so that
// export, import into an empty home, export gives the same bytes.
export const JSONL_SOURCE = "jsonl";
