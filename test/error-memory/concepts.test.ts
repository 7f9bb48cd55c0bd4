import { describe, expect, test } from "bun:test";
import { describeErrorCodes } from "../../src/memory/error-memory/error-codes.ts";
import { describeFileNames, errorConcepts, splitIdentifiers } from "../../src/memory/error-memory/error-concepts.ts";

describe("error classes for the word-level match", () => {
  test("camelCase and snake_case identifiers are split, the original kept", () => {
    expect(splitIdentifiers("Reason: OOMKilled")).toBe("Reason: OOMKilled OOM Killed");
    expect(splitIdentifiers("(ExpiredToken) user_id")).toBe("(ExpiredToken Expired Token) user_id user id");
    expect(splitIdentifiers("plain words stay")).toBe("plain words stay");
  });

  test("a file's extension says what it is", () => {
    expect(describeFileNames("bash: ./deploy.sh: Permission denied")).toBe(
      "bash: ./deploy.sh (shell script): Permission denied",
    );
    expect(describeFileNames("needed by 'main.o'")).toContain("main.o (object file)");
    expect(describeFileNames("api.internal v1.2")).toBe("api.internal v1.2");
  });

  test("standard error codes are said in words", () => {
    expect(describeErrorCodes("Error: ENOSPC: write failed")).toBe(
      "Error: ENOSPC (no space left on device): write failed",
    );
    expect(describeErrorCodes("make: *** [Makefile:5: hello.o] Error 127")).toContain("Error 127 (command not found)");
    expect(describeErrorCodes("Exit Code: 137")).toBe("Exit Code: 137 (killed)");
    expect(describeErrorCodes("the requested URL returned error: 503")).toContain("503 (service unavailable)");
    expect(describeErrorCodes("worker got SIGSEGV")).toContain("SIGSEGV (segmentation fault");
    // Codes that are no standard code, and numbers no status word announces, are left as they are.
    expect(describeErrorCodes("error[E0502]: cannot borrow")).toBe("error[E0502]: cannot borrow");
    expect(describeErrorCodes("listening on 8080, 404 requests served")).toBe("listening on 8080, 404 requests served");
    expect(errorConcepts(describeErrorCodes("EADDRINUSE"))).toContain("taken");
  });

  test("the same class is named by a tool's words and by a person's", () => {
    const both = (tool: string, person: string, name: string) => {
      expect(errorConcepts(splitIdentifiers(tool))).toContain(name);
      expect(errorConcepts(person)).toContain(name);
    };
    both("EACCES: permission denied", "access was refused", "permission");
    both("Reason: OOMKilled", "it ran out of RAM", "memory");
    both("write failed: no space left on device", "the disk is full", "disk");
    both("connect ETIMEDOUT 10.0.0.1:443", "the request hangs", "timeout");
    both("curl: (7) Failed to connect: Connection refused", "nothing is listening on that port", "refused");
    both("chmod +x run.sh", "the program could not be executed", "execute");
  });

  test("a text about something else names no class", () => {
    expect(errorConcepts("what should I cook for dinner tonight")).toEqual([]);
  });
});
