import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

type Step = {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
};

/** The preview workflow runs pull-request code: credentials must reach only the step that needs them. */
describe("the infrastructure preview workflow", () => {
  const workflow = parse(readFileSync(".github/workflows/preview.yml", "utf8"));
  const job = workflow.jobs.preview;
  const steps: Step[] = job.steps;
  const text = (s: Step) => JSON.stringify(s);

  const rows = job.strategy.matrix.include as Array<{
    stack: string;
    cloud: string;
    environment: string;
    runner: string;
  }>;

  it("runs on pull_request (never pull_request_target), in an environment per row, not for forks", () => {
    expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
    expect(job.environment).toBe("${{ matrix.environment }}");
    expect(job.if).toContain("head.repo.full_name == github.repository");
    expect(workflow.permissions).toEqual({ contents: "read" });
  });

  it("previews production stacks only in the preview-prod environment (required reviewers), the rest in preview", () => {
    const byEnvironment = (env: string) =>
      rows
        .filter((r) => r.environment === env)
        .map((r) => r.stack)
        .sort();
    expect(byEnvironment("preview-prod")).toEqual(["prod-aws", "prod-azure"]);
    expect(byEnvironment("preview")).toEqual(["local", "onprem", "staging-aws"]);
    expect(rows).toHaveLength(5);
  });

  it("holds no long-lived Pulumi token: a one-hour team token by OIDC, kept out of the job's environment", () => {
    expect(JSON.stringify(workflow)).not.toContain("secrets.PULUMI_ACCESS_TOKEN");
    const auth = steps.find((s) => s.uses?.startsWith("pulumi/auth-actions@"))!;
    expect(auth.with).toMatchObject({
      "requested-token-type": "urn:pulumi:token-type:access_token:team",
      scope: "team:${{ vars.PULUMI_PREVIEW_TEAM }}",
      "token-expiration": 3600,
      "export-environment-variables": "false",
    });
    const preview = steps.find((s) => s.uses === "pulumi/actions@v6")!;
    expect(preview.env!.PULUMI_ACCESS_TOKEN).toBe("${{ steps.pulumi-token.outputs.pulumi-access-token }}");
    expect((auth as { id?: string }).id).toBe("pulumi-token");
  });

  it("installs without install scripts before any credential exists", () => {
    const install = steps.findIndex((s) => s.run?.startsWith("npm ci"));
    expect(steps[install].run).toContain("--ignore-scripts");
    const firstSecret = steps.findIndex((s) => /secrets\.|role-to-assume|client-id|auth-actions/.test(text(s)));
    expect(install).toBeLessThan(firstSecret);
  });

  it("gives the Pulumi token only to the preview step, and Azure OIDC its ARM_* variables", () => {
    const withToken = steps.filter((s) => text(s).includes("PULUMI_ACCESS_TOKEN"));
    expect(withToken.map((s) => s.uses)).toEqual(["pulumi/actions@v6"]);
    expect(job.env).toBeUndefined();
    const env = withToken[0].env!;
    for (const name of ["ARM_USE_OIDC", "ARM_CLIENT_ID", "ARM_TENANT_ID", "ARM_SUBSCRIPTION_ID"])
      expect(env[name], name).toBeTruthy();
  });

  it("says what the kubeconfig's identity is: the shipped dry-run-only RBAC, not `view` (with which every preview fails)", () => {
    const raw = readFileSync(".github/workflows/preview.yml", "utf8");
    expect(raw).toContain("infra/preview/rbac.yaml");
    expect(raw).not.toMatch(/bound to `view`/);
  });

  it("runs every preview with the repository's policy pack", () => {
    const preview = steps.find((s) => s.uses === "pulumi/actions@v6")!;
    expect(preview.with).toMatchObject({ command: "preview", policyPacks: "infra/policy" });
  });

  it("previews in-network stacks only from the self-hosted runner the variable names, else skips them with a notice", () => {
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
