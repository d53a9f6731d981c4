import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../service/src/config.js";
import { isByteSize } from "../../infra/stack/bytes.js";

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-config-")), JWT_SECRET: "s".repeat(64) });

describe("byte sizes: one parser for the service and the stack", () => {
  it("reads the sizes nginx writes, in the service's variables", () => {
    const config = loadConfig({ ...base(), JSON_BODY_LIMIT: "5120k", FILE_MAX_BYTES: "1g" });
    expect(config.jsonBodyLimit).toBe(5120 * 1024);
    expect(config.fileMaxBytes).toBe(1024 ** 3);
  });

  it("stops the start on a size that is not one, naming the variable", () => {
    expect(() => loadConfig({ ...base(), FILE_MAX_BYTES: "5 TB" })).toThrow(
      "FILE_MAX_BYTES must be a byte size such as 5242880, 5120k or 512m (got '5 TB')",
    );
  });

  it("the stack accepts exactly what the service accepts", () => {
    for (const v of ["5242880", "5120k", "5120KiB", "512m", "1g", "5 MB"]) expect(isByteSize(v)).toBe(true);
    for (const v of ["5 TB", "five", "-1", "1.5m"]) expect(isByteSize(v)).toBe(false);
  });
});
