// Ordered schema migrations; user_version holds how many have run. Append only, never edit a shipped one.
import core from "./001-core.sql" with { type: "text" };
import embedding from "./002-embedding.sql" with { type: "text" };
import errorMemory from "./003-error-memory.sql" with { type: "text" };
import usage from "./004-usage.sql" with { type: "text" };
import recentScan from "./005-recent-scan.sql" with { type: "text" };
import v02 from "./006-v0.2.sql" with { type: "text" };
import v03 from "./007-v0.3.sql" with { type: "text" };
import v04 from "./008-v0.4.sql" with { type: "text" };
import v05 from "./009-v0.5.sql" with { type: "text" };
import v06 from "./010-v0.6.sql" with { type: "text" };
import v07 from "./011-v0.7.sql" with { type: "text" };
import v08 from "./012-v0.8.sql" with { type: "text" };
import v09 from "./013-v0.9.sql" with { type: "text" };
import v010 from "./014-v0.10.sql" with { type: "text" };

export const MIGRATIONS: readonly string[] = [
  core,
  embedding,
  errorMemory,
  usage,
  recentScan,
  v02,
  v03,
  v04,
  v05,
  v06,
  v07,
  v08,
  v09,
  v010,
];
