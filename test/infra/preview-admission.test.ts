import { readFileSync } from "node:fs";
import { evaluate } from "@marcbachmann/cel-js";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";

type Policy = {
  spec: {
    failurePolicy: "Fail" | "Ignore";
    matchConstraints: { resourceRules: Array<{ operations: string[] }> };
    matchConditions: Array<{ name: string; expression: string }>;
    validations: Array<{ expression: string; message: string }>;
  };
};

const policy = parseAllDocuments(readFileSync("infra/preview/rbac.yaml", "utf8"))
  .map((d) => d.toJS() as { kind: string } & Policy)
  .find((o) => o.kind === "ValidatingAdmissionPolicy")!;

/** An AdmissionRequest as the API server hands it to CEL (`request`): the fields the policy may read. */
interface Request {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  userInfo: { username: string; groups?: string[] };
  dryRun?: boolean;
  kind: { group: string; version: string; kind: string };
  namespace?: string;
  name?: string;
}

/**
 * What the API server decides, per the ValidatingAdmissionPolicy semantics: the policy applies when
 * the operation is matched and every matchCondition is true; then each validation must be true. An
 * expression that errors (a missing field) takes the failurePolicy: Fail denies.
 */
function admitted(request: Request): boolean {
  const { spec } = policy;
  const failed = spec.failurePolicy !== "Fail";
  const cel = (expression: string): boolean | "error" => {
    try {
      return evaluate(expression, { request }) === true;
    } catch {
      return "error";
    }
  };
  if (!spec.matchConstraints.resourceRules.some((r) => r.operations.includes(request.operation))) return true;
  for (const c of spec.matchConditions) {
    const v = cel(c.expression);
    if (v === "error") return failed;
    if (!v) return true;
  }
  for (const v of spec.validations) {
    const ok = cel(v.expression);
    if (ok === "error") return failed;
    if (!ok) return false;
  }
  return true;
}

const PREVIEW = "system:serviceaccount:pulumi-preview:pulumi-preview";
const secret = { group: "", version: "v1", kind: "Secret" };

describe("the preview identity's admission policy, evaluated as CEL (not compared with itself)", () => {
  it("admits the preview identity's dry-runs: the server-side apply a preview makes", () => {
    expect(admitted({ operation: "UPDATE", userInfo: { username: PREVIEW }, dryRun: true, kind: secret })).toBe(true);
    expect(admitted({ operation: "CREATE", userInfo: { username: PREVIEW }, dryRun: true, kind: secret })).toBe(true);
  });

  it("refuses every write of the preview identity that is not a dry-run, whatever the verb", () => {
    for (const operation of ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const)
      expect(admitted({ operation, userInfo: { username: PREVIEW }, dryRun: false, kind: secret }), operation).toBe(
        false,
      );
  });

  it("fails closed when the request says nothing of dry-run", () => {
    expect(admitted({ operation: "UPDATE", userInfo: { username: PREVIEW }, kind: secret })).toBe(false);
  });

  it("leaves every other identity alone, including one whose name merely starts alike", () => {
    for (const username of ["system:serviceaccount:agentport-deploy:deployer", `${PREVIEW}-2`, "kubernetes-admin"])
      expect(admitted({ operation: "DELETE", userInfo: { username }, dryRun: false, kind: secret }), username).toBe(
        true,
      );
  });
});
