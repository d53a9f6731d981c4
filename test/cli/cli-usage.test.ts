/**
 * The three CLIs a newcomer runs first, spawned as real processes: help and version answer
 * with exit 0, unknown flags and wrong stack names answer with the usage and exit 2.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const exec = promisify(execFile);
const CLIS = {
  keys: "service/src/cli/keys.ts",
  plan: "infra/plan/cli.ts",
  loadtest: "loadtest/harness/cli.ts",
} as const;

async function cli(
  name: keyof typeof CLIS,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    PORT: "1",
    LOG_LEVEL: "silent",
    DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")),
  };
  try {
    const { stdout, stderr } = await exec("node", ["--import", "tsx", CLIS[name], ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("CLI usage", () => {
  it.each([
    ["keys", "--help"],
    ["keys", "-h"],
    ["plan", "--help"],
    ["loadtest", "--help"],
  ] as const)("%s %s prints the usage on stdout and exits 0", async (name, flag) => {
    const r = await cli(name, flag);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: /im);
    expect(r.stdout).toContain(`npm run ${name} --`);
  });

  it.each(["keys", "plan", "loadtest"] as const)("%s --version prints the package version", async (name) => {
    const r = await cli(name, "--version");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^agentport \d+\.\d+\.\d+$/);
  });

  it("the three help texts share one style: usage lines, then flags in one column layout", async () => {
    const texts = await Promise.all(
      (["keys", "plan", "loadtest"] as const).map(async (name) => (await cli(name, "--help")).stdout),
    );
    for (const text of texts) {
      expect(text).toMatch(/^usage: npm run \w+ -- /);
      expect(text).toContain("\n  -h, --help                    this text\n");
      expect(text).toContain("\n      --version                 the agentport version");
      // Every flag line: an optional short flag, the long flag, its description from column 33.
      const flagLines = text
        .split("\n")
        .filter((l) => /^ {2}(-\w, | {4})--[a-z]/.test(l) && !/^ {6}--[a-z-]+ \w+, --/.test(l));
      expect(flagLines.length).toBeGreaterThan(3);
      for (const line of flagLines) expect(line, line).toMatch(/^.{31} \S/);
    }
  });

  it.each(["keys", "plan", "loadtest"] as const)(
    "%s refuses an unknown flag with one line naming it, the usage, and exit 2",
    async (name) => {
      const r = await cli(name, "--frobnicate");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--frobnicate");
      expect(r.stderr).toMatch(/usage: /i);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    },
  );

  it(
    "keys create --client prints that client's MCP configuration, and refuses an unknown client with exit 2",
    { timeout: 120_000 },
    async () => {
      const r = await cli("keys", "create", "--name", "vscode user", "--client", "vscode");
      expect(r.code).toBe(0);
      const secret = /API secret key \(shown once, store it now\): (ap-\S+)/.exec(r.stdout)?.[1];
      const json = JSON.parse(
        r.stdout.slice(r.stdout.indexOf("MCP configuration (vscode):") + "MCP configuration (vscode):".length),
      );
      expect(json).toEqual({
        servers: {
          agentport: {
            type: "http",
            url: expect.stringMatching(/\/mcp$/),
            headers: { Authorization: `Bearer ${secret}` },
          },
        },
      });
      const bad = await cli("keys", "create", "--name", "x", "--client", "emacs");
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        "unknown --client 'emacs' (known: generic, claude-code, claude-desktop, vscode, cursor, inspector)",
      );
    },
  );

  it("keys create refuses an --expires-at that is not Unix seconds, with exit 2", async () => {
    const bad = await cli("keys", "create", "--name", "x", "--expires-at", "tomorrow");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--expires-at takes Unix seconds");
  });

  it("keys refuses an unknown command with exit 2 before touching any store", async () => {
    const r = await cli("keys", "frob");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frob'");
  });

  it.each([
    ["plan", ["--stack", "prod-awz"]],
    ["loadtest", ["--local", "--stack", "prod-awz"]],
  ] as const)("%s lists the stacks for a wrong stack name and exits 2", async (name, args) => {
    const r = await cli(name, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no stack 'prod-awz' (stack files: local, onprem, prod-aws, prod-azure, staging-aws)");
    expect(r.stderr).not.toContain("ENOENT");
  });
});
