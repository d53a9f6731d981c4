/**
 * Settings that would hand a tenant the deployment are refused at start: a JWT secret short enough
 * to guess offline (the server exits 2 and says how to make one), and a JSON body limit beyond
 * what one request may carry.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, MAX_JSON_BODY_LIMIT } from "../../../service/src/config.js";

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-bounds-")), JWT_SECRET: "s".repeat(64) });

/** The server's exit code and stderr, bounded: it must exit on its own before it listens. */
function serverExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn("node", ["--import", "tsx", "service/src/server.ts"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe("start-up bounds", () => {
  it("JWT_SECRET=a: exit 2, the variable, the minimum and how to generate one", { timeout: 90_000 }, async () => {
    const { code, stderr } = await serverExit({ ...base(), JWT_SECRET: "a" });
    expect(code).toBe(2);
    expect(stderr).toContain(
      "JWT_SECRET must be at least 32 bytes (got 1); generate one with: openssl rand -base64 48",
    );
    expect(stderr).not.toContain("'a'");
  });

  it("a 31-byte secret is refused, a 32-byte one accepted", () => {
    expect(() => loadConfig({ ...base(), JWT_SECRET: "k".repeat(31) })).toThrow("JWT_SECRET must be at least 32 bytes");
    expect(loadConfig({ ...base(), JWT_SECRET: "k".repeat(32) }).jwtSecret).toBe("k".repeat(32));
  });

  it("JSON_BODY_LIMIT=10g is refused, naming the largest accepted; 32m is accepted", () => {
    expect(() => loadConfig({ ...base(), JSON_BODY_LIMIT: "10g" })).toThrow(
      "JSON_BODY_LIMIT must be a byte size such as 5242880, 5120k or 512m, at most 32m (got '10g')",
    );
    expect(loadConfig({ ...base(), JSON_BODY_LIMIT: "32m" }).jsonBodyLimit).toBe(MAX_JSON_BODY_LIMIT);
  });
});
