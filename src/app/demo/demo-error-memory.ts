// Demo error-memory records: tool errors agents ran into, with the fix that worked (or did not).
import type { DemoError } from "./demo-types.ts";

export const DEMO_ERRORS: readonly DemoError[] = [
  {
    tool: "bash",
    error: "jq: command not found",
    cause: "The CI runner image does not ship jq.",
    fix: "Install it first (apt-get install -y jq), or parse the JSON with python3 -c 'import json,sys; ...'.",
    keywords: ["ci", "jq", "json"],
  },
  {
    tool: "http_request",
    error: "connect ETIMEDOUT 10.20.0.15:443 after 30000 ms (GET https://billing.internal/v1/invoices)",
    cause: "billing.internal resolves to a private address only reachable through the VPN.",
    fix: "Use the public gateway https://api.example.com/billing/v1/invoices with the service token.",
    keywords: ["timeout", "vpn", "billing"],
  },
  {
    tool: "sql",
    error: 'ERROR: duplicate key value violates unique constraint "processed_events_pkey"',
    cause: "Stripe delivered the same webhook event twice.",
    fix: "Expected for duplicates: catch the unique violation and answer 200 without processing again.",
    keywords: ["stripe", "webhook", "idempotency"],
  },
  {
    tool: "npm",
    error: "npm ERR! code ERESOLVE unable to resolve dependency tree: peer react@18 from react-dom@18.3.1",
    fix: "Tried --legacy-peer-deps: the install passed but the build failed at runtime. Pin react and react-dom to the same major instead.",
    outcome: "failed",
    keywords: ["npm", "peer dependencies"],
  },
  {
    tool: "python",
    error: "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xa4 in position 0: invalid start byte",
    cause: "匯出的 CSV 是 Big5 編碼，不是 UTF-8。",
    fix: "用 open(path, encoding='big5') 讀取，或先用 iconv -f BIG5 -t UTF-8 轉檔。",
    keywords: ["csv", "big5", "編碼"],
  },
];
