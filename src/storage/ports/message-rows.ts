// The messages row and the listing range every archive driver shares (a leaf: drivers import it freely).
import type { MessageFilter } from "../../shared/time-filter.ts";

/** A messages row as a driver reads it; `R` is how the driver reads the recent flag. */
export interface MessageRow<R> {
  seq: bigint;
  id: string;
  session_id: string;
  role: string;
  content: string;
  send_at: bigint;
  sender: string | null;
  recent: R;
}

export interface MessageRange {
  recentOnly?: boolean;
  archivedOnly?: boolean;
  afterSeq?: bigint;
  beforeSeq?: bigint;
  limit?: number;
  newestFirst?: boolean;
  filter?: MessageFilter;
}
