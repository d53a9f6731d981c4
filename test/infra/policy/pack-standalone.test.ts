/**
 * The pack is self-contained, as shared CrossGuard packs are: its folder alone, copied outside the
 * repository and given its own dependencies, loads in the Pulumi CLI's runner and refuses a
 * broken plan. Bounded: the install and the pack's start each have a timeout.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pb, startPack, type RunningPack } from "./analyzer.js";

const PACK = "infra/policy";
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("the policy pack's folder", () => {
  it("imports nothing from outside itself", () => {
    const sources = readdirSync(PACK).filter((f) => /\.(ts|cjs)$/.test(f));
    const outside = sources.flatMap((f) =>
      [...readFileSync(join(PACK, f), "utf8").matchAll(/(?:from|import\()\s*["'](\.\.\/[^"']+)["']/g)].map(
        (m) => `${f}: ${m[1]}`,
      ),
    );
    expect(outside).toEqual([]);
  });
  it("declares the policy SDK, the Pulumi SDK and its loader at the versions the program uses", () => {
    const root = json("package.json").dependencies;
    const deps = json(join(PACK, "package.json")).dependencies;
    expect(Object.keys(deps).sort()).toEqual(["@pulumi/policy", "@pulumi/pulumi", "tsx"]);
    for (const [name, range] of Object.entries(deps)) expect(range, name).toBe(root[name]);
    expect(readFileSync(join(PACK, "PulumiPolicy.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
  });
});

describe("the policy pack installed alone, outside the repository", () => {
  let dir: string;
  let pack: RunningPack;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentport-policy-"));
    cpSync(PACK, dir, { recursive: true, filter: (src) => !src.includes("node_modules") });
    await promisify(execFile)("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: dir,
      timeout: 240_000,
    });
    // The copy's own SDK runs it, as the CLI runs a pack from its folder.
    pack = await startPack(resolve(dir, "node_modules/@pulumi/pulumi/cmd/run-policy-pack"), dir);
  }, 320_000);
  afterAll(() => {
    pack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("loads with every policy mandatory", async () => {
    const info = await pack.info();
    expect(info.name).toBe("agentport");
    expect(info.policies).toHaveLength(7);
    expect(new Set(info.policies.map((p) => p[1]))).toEqual(new Set([pb.EnforcementLevel.MANDATORY]));
  });

  it("fires on a broken plan: a placeholder, a public bucket outside the region, unprotected", async () => {
    const bucket = await pack.analyze(
      "aws:s3/bucket:Bucket",
      "storage-bucket",
      { acl: "public-read", region: "us-east-1", tags: { owner: "<REPLACE_WITH_YOUR_TEAM>" } },
      false,
    );
    expect(bucket.map((d) => d.policy).sort()).toEqual([
      "cloudb-bucket-region",
      "no-placeholder-values",
      "stateful-resources-protected",
    ]);
    expect(bucket.every((d) => d.message.includes("storage-bucket") && d.level === pb.EnforcementLevel.MANDATORY)).toBe(
      true,
    );
    const release = await pack.analyze(
      "kubernetes:helm.sh/v3:Release",
      "platform-chart",
      { values: { jwt: { secret: "short" } } },
      true,
    );
    expect(release).toEqual([
      {
        policy: "secret-lengths",
        message: expect.stringContaining("values.jwt.secret is 5 characters"),
        level: pb.EnforcementLevel.MANDATORY,
      },
    ]);
  });

  it("is silent on a sound resource", async () => {
    expect(await pack.analyze("aws:s3/bucket:Bucket", "storage-bucket", { region: "ap-northeast-1" }, true)).toEqual(
      [],
    );
  });
});
