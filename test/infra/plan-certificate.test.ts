import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { certificateCovers } from "../../infra/api/certificate-check.js";
import { STACKS_DIR } from "../../infra/limits.js";
import { runPlan } from "../../infra/plan/run.js";

describe("the load balancer's ACM certificate must cover the API host (AWS)", () => {
  it("matches a name exactly or by a one-label wildcard, case-insensitively", () => {
    expect(certificateCovers(["agents.example.com", "*.agents.example.com"], "api.agents.example.com")).toBe(true);
    expect(certificateCovers(["API.Agents.Example.com"], "api.agents.example.com")).toBe(true);
    expect(certificateCovers(["*.example.com"], "api.agents.example.com")).toBe(false); // a wildcard covers one label only
    expect(certificateCovers(["agents.example.com"], "api.agents.example.com")).toBe(false);
  });

  it("stops the run with a clear error when the certificate does not name the API host", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stacks-"));
    const stack = readFileSync(join(STACKS_DIR, "Pulumi.prod-aws.yaml"), "utf8").replace(
      "  agentport:api:\n",
      "  agentport:api:\n    host: api.other-domain.example.net\n",
    );
    writeFileSync(join(dir, "Pulumi.elsewhere.yaml"), stack);
    const error = await runPlan("elsewhere", dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /names agents\.example\.com, agents\.example\.com, \*\.agents\.example\.com, not the API host api\.other-domain\.example\.net/,
    );
  }, 120_000);
});
