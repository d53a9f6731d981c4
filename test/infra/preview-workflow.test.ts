import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

type Step = { name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown> };

/** The preview workflow runs pull-request code: credentials must reach only the step that needs them. */
describe("the infrastructure preview workflow", () => {
  const workflow = parse(readFileSync(".github/workflows/preview.yml", "utf8"));
  const job = workflow.jobs.preview;
  const steps: Step[] = job.steps;
  const text = (s: Step) => JSON.stringify(s);

  it("runs on pull_request (never pull_request_target), in an environment, not for forks", () => {
    expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
    expect(job.environment).toBe("preview");
    expect(job.if).toContain("head.repo.full_name == github.repository");
    expect(workflow.permissions).toEqual({ contents: "read" });
  });

  it("installs without install scripts before any credential exists", () => {
    const install = steps.findIndex((s) => s.run?.startsWith("npm ci"));
    expect(steps[install].run).toContain("--ignore-scripts");
    const firstSecret = steps.findIndex((s) => /secrets\.|role-to-assume|client-id/.test(text(s)));
    expect(install).toBeLessThan(firstSecret);
  });

  it("gives the Pulumi token only to the preview step, and Azure OIDC its ARM_* variables", () => {
    const withToken = steps.filter((s) => text(s).includes("PULUMI_ACCESS_TOKEN"));
    expect(withToken.map((s) => s.uses)).toEqual(["pulumi/actions@v6"]);
    expect(job.env).toBeUndefined();
    const env = withToken[0].env!;
    for (const name of ["ARM_USE_OIDC", "ARM_CLIENT_ID", "ARM_TENANT_ID", "ARM_SUBSCRIPTION_ID"]) expect(env[name], name).toBeTruthy();
  });

  it("runs every preview with the repository's policy pack", () => {
    const preview = steps.find((s) => s.uses === "pulumi/actions@v6")!;
    expect(preview.with).toMatchObject({ command: "preview", policyPacks: "infra/policy" });
  });

  it("previews in-network stacks only from the self-hosted runner the variable names, else skips them with a notice", () => {
    const rows = job.strategy.matrix.include as Array<{ stack: string; cloud: string; runner: string }>;
    const inNetwork = rows.filter((r) => ["local", "onprem"].includes(r.stack));
    expect(inNetwork.map((r) => r.cloud)).toEqual(["none", "none"]);
    for (const row of inNetwork) expect(row.runner).toMatch(/^\$\{\{ vars\.ONPREM_RUNNER \|\| /);
    const notice = steps[0];
    expect(notice.if).toBe("matrix.cloud == 'none' && vars.ONPREM_RUNNER == ''");
    expect(notice.run).toContain("::notice::");
    // Every other step that is not cloud-specific is skipped in that case.
    for (const step of steps.slice(1).filter((s) => !s.if?.startsWith("matrix.cloud == '"))) {
      expect(step.if, text(step)).toBe("matrix.cloud != 'none' || vars.ONPREM_RUNNER != ''");
    }
  });
});
