// The shapes every importer produces: sessions of messages keyed by their source record, and problems.
import { namedError } from "../shared/errors.ts";
import type { Role } from "../shared/message.ts";

export interface ImportedMessage {
  /** The source record's own id (or a stable stand-in); with the source it derives the memvoy id. */
  key: string;
  role: Role;
  content: string;
  /** UTC ns, the record's own time. */
  sendAt: bigint;
  /** The content only continues the message imported earlier under this key (more of a streamed reply). */
  continues?: boolean;
}

export interface ImportedSession {
  /** The memvoy session id: `<prefix>-<source id>`. */
  id: string;
  title?: string;
  /** The title is only the first user line (a tool title found later replaces it). */
  titleIsFallback?: boolean;
  project?: string;
  /** The parent session of a sub-agent session (a memvoy session id). */
  parent?: string;
  messages: ImportedMessage[];
  /**
   * The file holds the session's whole current history (it is re-read whole): messages imported earlier
   * from it but absent now were removed by the tool (a Gemini rewind) and are removed here too.
   */
  complete?: boolean;
  /**
   * With `complete`: the messages the source still holds (key and time) though this read did not return them (a
   * later pass reads only what changed). Only a message in neither this read nor here is gone from the source.
   */
  present?: { key: string; sendAt: bigint }[];
  /** Messages the source holds but took back (a rewind's abandoned turns): left out, and removed if imported before. */
  dropped?: { key: string; sendAt: bigint }[];
}

export interface Problem {
  file: string;
  /** 1-based line, when the problem is one line or record. */
  line?: number;
  reason: string;
}

/** What one pass over one file found. */
export interface FileRead {
  sessions: ImportedSession[];
  /** Malformed lines or records, skipped. */
  skipped: Problem[];
  /** Byte offset after the last complete line read (append-only formats); the next pass starts there. */
  offset?: number;
  /** Importer state to keep for the next pass (e.g. the session id a rollout's first line named). */
  state?: Record<string, unknown>;
  /**
   * The file ends short of its format's end (a .zst cut inside a frame): what was read is stored, as a plain file's
   * complete lines are, and the file is reported failed with this error and read again at the next pass.
   */
  incomplete?: Error;
}

/** The file is not in the source's format at all: not `expected` (e.g. "a Codex rollout"), `because` says why. */
export const NotThisFormatError = namedError<{ file: string; expected: string; because: string }>(
  "NotThisFormatError",
  "input",
  (d) => `${d.file}: not ${d.expected} (${d.because})`,
);
export type NotThisFormatError = InstanceType<typeof NotThisFormatError>;

export interface ReadContext {
  file: string;
  /** Where to start (0, or the offset of the last pass when the file only grew). */
  offset: number;
  /** The importer state the last pass kept (empty when reading from 0). */
  state: Record<string, unknown>;
  /** The state the last full pass kept, even when this pass reads from 0 or is a --since pass (a source re-read whole may use it). */
  prior: Record<string, unknown>;
  /** Told the bytes of the file read so far (from its start; compressed for a .zst) as a large file is read. */
  onRead?: (bytes: number) => void;
}

export interface Source {
  name: string;
  /** Session id prefix: cc, codex, oc, gem, aider, gpt. */
  prefix: string;
  /** Default locations (environment overrides applied); undefined when the source has none. */
  defaultPaths(env: Record<string, string | undefined>): string[] | undefined;
  /** Expand a path (a file or a folder) into the files this source reads, in a stable order. */
  files(path: string): string[];
  /** Read one file from ctx.offset. Appendable formats return the offset to resume from. */
  read(ctx: ReadContext): FileRead | Promise<FileRead>;
  /** Whether re-reading can start at the last offset when the file only grew (append-only JSONL). */
  appendOnly(file: string): boolean;
  /** Size and mtime that tell whether the file changed (default: the file's own). */
  stamp?(file: string): { size: number; mtimeNs: bigint };
  /** An unchanged file is read anyway: what its session takes from outside it (Codex's thread names) changed since. */
  outdated?(file: string, state: Record<string, unknown>): boolean;
}
