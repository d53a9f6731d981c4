import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tlsSecretProblem } from "../../infra/api/tls-copy.js";
import { STACKS_DIR } from "../../infra/limits.js";
import { runPlan } from "../../infra/plan/run.js";

/** Its own file: the program runs once per process. */
describe("the API certificate copied from api.tlsSourceNamespace (onprem)", () => {
  it("refuses a TLS Secret without a key, or whose certificate does not name the API host", async () => {
    expect(tlsSecretProblem({ "tls.crt": "x" }, "api.example.com")).toBe("holds no tls.crt and tls.key");
    const dir = mkdtempSync(join(tmpdir(), "stacks-"));
    const stack = readFileSync(join(STACKS_DIR, "Pulumi.onprem.yaml"), "utf8").replace(
      "  agentport:api:\n",
      "  agentport:api:\n    host: api.elsewhere.example.net\n",
    );
    writeFileSync(join(dir, "Pulumi.elsewhere.yaml"), stack);
    const error = await runPlan("elsewhere", dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /the TLS Secret platform\/corp-wildcard-tls \(api\.tls, copied from api\.tlsSourceNamespace\) names \*\.agents\.corp\.example\.com, agents\.corp\.example\.com, not the API host api\.elsewhere\.example\.net/,
    );
  }, 120_000);
});
