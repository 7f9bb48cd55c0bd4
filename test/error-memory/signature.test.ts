import { describe, expect, test } from "bun:test";
import { errorSignature } from "../../src/memory/error-memory/signature.ts";

const same = (a: string, b: string) => expect(errorSignature(a)).toBe(errorSignature(b));
const differ = (a: string, b: string) => expect(errorSignature(a)).not.toBe(errorSignature(b));

describe("errorSignature", () => {
  test("numbers, ports, durations and line numbers are normalised away", () => {
    same(
      "connect ECONNREFUSED 127.0.0.1:5432 after 30s (attempt 3)",
      "connect ECONNREFUSED 10.0.0.7:6543 after 45s (attempt 12)",
    );
    same("src/app.ts(42,7): error TS2345: oops", "lib/other.ts(1,1): error TS2345: oops");
    // Go prints a duration of a minute or more in parts.
    same("timed out waiting for the condition after 2m30s", "timed out waiting for the condition after 45s");
    same("context deadline exceeded after 1h2m3.5s", "context deadline exceeded after 250ms");
  });

  test("network addresses are normalised away, IPv4 or IPv6 alike, with a port or not", () => {
    // Node 17+ reaches localhost at ::1, older releases at 127.0.0.1: the same server is down.
    same("Error: connect ECONNREFUSED 127.0.0.1:5432", "Error: connect ECONNREFUSED ::1:5432");
    same(
      "Error: listen EADDRINUSE: address already in use :::3000",
      "Error: listen EADDRINUSE: address already in use 0.0.0.0:8080",
    );
    same("dial tcp [::1]:6379: connect: connection refused", "dial tcp 10.0.3.7:6379: connect: connection refused");
    same("ping fe80::1%eth0: unreachable", "ping ::ffff:10.0.0.1: unreachable");
    // C++ and Rust paths, clock times and a single colon are no addresses.
    differ("std::vector<int> out of range", "std::string out of range");
    differ("crate::db::pool timed out", "crate::http::client timed out");
  });

  test("sizes with a binary or one-letter unit are numbers too (Kubernetes quantities, JVM heap sizes)", () => {
    same(
      "OOMKilled: container api exceeded its memory limit 512Mi",
      "OOMKilled: container api exceeded its memory limit 1Gi",
    );
    same(
      "exceeded quota: requested limits.memory=2Gi, used 6Gi, limited 8Gi",
      "exceeded quota: requested limits.memory=512Mi, used 7Ti, limited 1Ti",
    );
    same("heap of 4g exhausted after 2.5G of allocations", "heap of 8g exhausted after 1T of allocations");
    differ("no matching manifest for arm64", "no matching manifest for amd64");
  });

  test("paths, urls and emails are normalised away", () => {
    same(
      "fatal: Unable to create '/home/alice/p/.git/index.lock': File exists.",
      "fatal: Unable to create '/srv/ci/work/.git/index.lock': File exists.",
    );
    same("open /var/lib/app/data.db: permission denied", "open ./data/cache.db: permission denied");
    same("cannot open C:\\Users\\bob\\app\\x.py", "cannot open D:\\work\\y.py");
    same(
      "error: could not lock config file C:/Users/u/.gitconfig: File exists",
      "error: could not lock config file /home/u/.gitconfig: File exists",
    );
    same(" --> src\\lib.rs:10:5 unused import", " --> src/main.rs:3:1 unused import");
    same("cannot open ..\\build\\out.log", "cannot open ../dist/app.log");
    // Folders with spaces: Windows' Program Files, a macOS user named in full.
    same(
      "Error: spawn C:\\Program Files\\nodejs\\npm.cmd ENOENT",
      "Error: spawn C:\\Users\\me\\AppData\\npm.cmd ENOENT",
    );
    same("cannot run C:\\Program Files (x86)\\Git\\bin\\git.exe now", "cannot run D:\\tools\\git.exe now");
    same("open /Users/Jane Doe/Library/app.db: permission denied", "open /Users/bob/Library/app.db: permission denied");
    same("open ~/My Documents/notes.txt: no such file", "open ~/notes.txt: no such file");
    // Two paths stay two; a word after a path is not part of it.
    differ("cp /a/b /c/d failed", "cp /a/b failed");
    differ("open /srv/app failed", "open /srv/app and more failed");
    same("GET https://registry.npmjs.org/foo - Not found", "GET https://npm.acme.dev/bar?x=1 - Not found");
    same("invite for alice@example.com bounced", "invite for bob.smith@acme.io bounced");
  });

  test("numbers written against CJK words are normalised away (Chinese, Japanese, Korean)", () => {
    same("語法錯誤：檔案第12行有無效的語法", "語法錯誤：檔案第37行有無效的語法");
    same("连接超时：等待30秒后仍无响应", "连接超时：等待45秒后仍无响应");
    same("設定ファイルの12行目で構文エラーが発生しました", "設定ファイルの15行目で構文エラーが発生しました");
    same("設定ファイルの12行目で構文エラー", "設定ファイルの３行目で構文エラー");
    same("12번째 줄에서 구문 오류", "7번째 줄에서 구문 오류");
    // Codes glued to Latin letters still tell errors apart.
    differ("錯誤 TS2345：型別不符", "錯誤 TS2322：型別不符");
  });

  test("CJK and German quotation marks are quotes too", () => {
    same("找不到模組「lodash」", "找不到模組「express」");
    same("モジュール『lodash』が見つかりません", "モジュール『react-dom』が見つかりません");
    same("Datei „config.yaml“ nicht gefunden", "Datei „.env“ nicht gefunden");
  });

  test("quoted parts are normalised away (but apostrophes inside words are kept)", () => {
    same("Cannot find module 'lodash'", 'Cannot find module "express"');
    same("relation `users` does not exist", "relation “orders” does not exist");
    // Ruby before 3.4, GNU make and ld quote `like this'.
    same(
      "undefined method `name' for nil:NilClass (NoMethodError)",
      "undefined method `email' for nil:NilClass (NoMethodError)",
    );
    same("make: *** No rule to make target `install'.  Stop.", "make: *** No rule to make target `clean'.  Stop.");
    same("main.c:(.text+0x1a): undefined reference to `foo'", "main.c:(.text+0x2b): undefined reference to `bar_baz'");
    same("did you mean `names'? (`name' is undefined)", "did you mean `emails'? (`email' is undefined)");
    differ("can't open file 'a.py'", "cannot open file 'a.py'");
  });

  test("uuids, hex, commit hashes and random-looking ids are normalised away", () => {
    same("lock 6f1d1a5e-5a0b-4c55-9b1e-1f0f1c2d3e4f held", "lock 0b7c8d9e-1111-4222-8333-444455556666 held");
    same("commit 9fceb02d0ae598e95dc970b74767f19372d61af8 not found", "commit 3a1b2c4 not found");
    same("pod api-7d9f8b6c5-x2x7k crashed", "pod api-5c4b3a291-p9q8r crashed");
    same("request req_8f7a6b5c4d3e failed", "request req_0a1b2c3d4e5f failed");
    same("segfault at 0x7ffd5e8b", "segfault at 0x00001234");
    same("at 2026-11-30T04:31:00.123Z the job failed", "at 2027-01-02 10:00:00 the job failed");
  });

  test("timestamps of log formats with a month's name, AM/PM or a zone are normalised away", () => {
    same("Dec 01 08:00:59 host sshd[1234]: Connection refused", "Nov 30 23:59:01 host sshd[99]: Connection refused");
    same(
      "[Mon Dec 01 08:00:59 2026] [error] File does not exist",
      "[Tue Nov 30 23:59:01 2026] [error] File does not exist",
    );
    same("Wed, 02 Dec 2026 10:15:02 GMT request failed", "Thu, 03 Dec 2026 11:00:00 GMT request failed");
    same("01-Dec-2026 08:00:59.123 SEVERE deploy failed", "30-Nov-2026 23:59:01.999 SEVERE deploy failed");
    same("I1201 08:00:59.123456 12345 main.go:42] sync failed", "I1130 23:59:01.999999 999 main.go:42] sync failed");
    same("2026-12-01 08:00:59 +0100 backup failed", "2026-11-30 23:59:01 -0500 backup failed");
    same("12/01/2026 08:00 AM backup failed", "11/30/2026 11:59 PM backup failed");
    same("September 3, 2026 backup failed", "March 14, 2025 backup failed");
    differ("I1201 08:00:59.123456 main.go:42] sync failed", "E1201 08:00:59.123456 main.go:42] sync failed");
    differ("you may retry", "you must retry");
  });

  test("error codes glued to letters and HTTP statuses are kept", () => {
    differ("error TS2345: bad argument", "error TS2322: bad argument");
    differ(
      "no matching manifest for arm64 in the manifest list",
      "no matching manifest for amd64 in the manifest list",
    );
    differ("curl: (22) The requested URL returned error: 404", "curl: (22) The requested URL returned error: 500");
    differ("HTTP/1.1 413 Request Entity Too Large", "HTTP/1.1 502 Request Entity Too Large");
    same("exit status 1", "exit status 2");
  });

  test("colour codes and line endings do not matter: an error printed to a terminal is the one printed to a pipe", () => {
    same(
      "\x1b[0m\x1b[1m\x1b[38;5;9merror[E0425]\x1b[0m\x1b[1m: cannot find value `y` in this scope\x1b[0m\r\n",
      "error[E0425]: cannot find value `x` in this scope\n",
    );
    same("\x1b[31mnpm ERR!\x1b[39m code ERESOLVE", "npm ERR! code ERESOLVE");
    differ("\x1b[31merror[E0425]\x1b[0m", "\x1b[31merror[E0433]\x1b[0m");
  });

  test("case and spacing do not matter; a very long error keeps a bounded signature", () => {
    same("Permission  DENIED\n(publickey)", "permission denied (publickey)");
    const long = errorSignature("x ".repeat(5000) + "tail");
    expect(long.length).toBeLessThan(1100);
    expect(long).not.toBe(errorSignature("x ".repeat(5000) + "other"));
  });
});
