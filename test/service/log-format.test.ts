/**
 * Log lines as people and collectors read them: the real server on a pseudo-terminal (util-linux
 * `script`, which runs a command on a new pty and copies what it writes) prints readable lines;
 * through a pipe, or with LOG_FORMAT=json on the terminal, one JSON object per line.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/store.js";

let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const SERVER = `${JSON.stringify(process.execPath)} --import tsx service/src/server.ts`;
const STARTED = "agentport API on";

/**
 * Starts the server (through `script` when `terminal`), reads its stdout until the started line,
 * then stops it; the output with the terminal's control sequences and carriage returns removed.
 */
async function firstLines(env: Record<string, string>, terminal: boolean): Promise<string> {
  const fullEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-logs-")),
    JWT_SECRET: "log-format-test-".padEnd(48, "x"),
    ...env,
  };
  const child = terminal
    ? spawn("script", ["-qfec", SERVER, "/dev/null"], { env: fullEnv, detached: true })
    : spawn(process.execPath, ["--import", "tsx", "service/src/server.ts"], { env: fullEnv, detached: true });
  let out = "";
  const started = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 90_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      if (out.includes(STARTED) && out.endsWith("\n")) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.on("exit", () => (clearTimeout(timer), resolve(false)));
  });
  // The whole group: `script`, and the server it runs on the terminal.
  const exited = new Promise<boolean>((r) => (child.exitCode !== null ? r(true) : child.on("exit", () => r(true))));
  const stop = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  stop("SIGTERM");
  if (!(await Promise.race([exited, new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]))) stop("SIGKILL");
  expect(started, out).toBe(true);
  // eslint-disable-next-line no-control-regex
  return out.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r/g, "");
}

const lineWith = (out: string, text: string) => out.split("\n").find((l) => l.includes(text)) ?? "";

describe("log lines", () => {
  it("on a terminal, `npm start`'s lines are readable: a local time, the level's name, the message", async () => {
    const out = await firstLines({}, true);
    const line = lineWith(out, STARTED);
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: agentport API on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(() => JSON.parse(line)).toThrow();
  }, 120_000);

  it("through a pipe, every line is one JSON object", async () => {
    const out = await firstLines({}, false);
    const lines = out.trim().split("\n");
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    expect(JSON.parse(lineWith(out, STARTED))).toMatchObject({ level: 30, time: expect.any(Number) });
  }, 120_000);

  it("on a terminal with LOG_FORMAT=json, every line is one JSON object", async () => {
    const out = await firstLines({ LOG_FORMAT: "json" }, true);
    const lines = out.trim().split("\n");
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    expect(JSON.parse(lineWith(out, STARTED)).msg).toContain(STARTED);
  }, 120_000);
});
