import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm run plan -- --json", () => {
  it("prints the whole plan as one JSON document: inputs masked, options, outputs", async () => {
    const { stdout } = await run("node", ["--import", "tsx", "infra/plan/cli.ts", "--stack", "prod-aws", "--json"], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    const plan = JSON.parse(stdout);
    expect(plan.stack).toBe("prod-aws");
    const rds = plan.resources.find((r: { type: string }) => r.type === "aws:rds/instance:Instance");
    expect(rds.options).toEqual({ protect: true, dependsOn: [], ignoreChanges: [], replaceOnChanges: [] });
    expect(rds.inputs.password).toBe("[secret]");
    // The release's values tree is readable, with only its secret leaves masked.
    const release = plan.resources.find((r: { type: string }) => r.type === "kubernetes:helm.sh/v3:Release");
    expect(release.inputs.values.jwt.secret).toBe("[secret]");
    expect(release.inputs.values.jwt.algorithm).toBe("HS512");
    expect(plan.outputs.apiBaseUrl).toMatch(/^https:\/\//);
    expect(plan.outputs.dashboardsAdminPassword).toBe("[secret]");
  }, 150_000);

  it("refuses an unknown flag with the usage and exit code 2", async () => {
    const err = await run("node", ["--import", "tsx", "infra/plan/cli.ts", "--stak", "local"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toContain("usage: npm run plan");
  }, 60_000);
});
