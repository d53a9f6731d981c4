import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const K6_DIR = join(import.meta.dirname, "../../loadtest/k6");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const scripts = readdirSync(K6_DIR).filter((f) => f.endsWith(".ts"));

describe("k6 scripts", () => {
  it("type-check against @types/k6 with their own tsconfig", async () => {
    const run = promisify(execFile)(process.execPath, [tsc, "-p", join(K6_DIR, "tsconfig.json")]);
    await expect(run.catch((e: { stdout: string }) => Promise.reject(new Error(e.stdout)))).resolves.toBeDefined();
  }, 120_000);

  it("each declares options with named scenarios, an explicit exec, and thresholds", () => {
    expect(scripts.sort()).toEqual(["body-limits.ts", "chat-stream.ts", "files.ts", "idle-timeout.ts", "revocation.ts"]);
    for (const file of scripts) {
      const text = readFileSync(join(K6_DIR, file), "utf8");
      expect(text, file).toMatch(/export const options: Options = \{/);
      const execs = [...text.matchAll(/exec: "(\w+)"/g)].map((m) => m[1]);
      expect(execs.length, file).toBeGreaterThan(0);
      for (const exec of execs) expect(text, `${file} exports ${exec}`).toMatch(new RegExp(`export function ${exec}\\(`));
      expect(text, file).toMatch(/http_req_failed/);
      expect(text, file).toMatch(/checks: \[/);
    }
  });
});
