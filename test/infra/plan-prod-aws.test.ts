import { beforeAll, describe, expect, it } from "vitest";
import { at, expectNoPlaintextSecrets, planFor, types } from "./plan-helpers.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("prod-aws");
});

describe("plan: prod-aws", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/prod-aws.plan.txt");
  });
  it("runs managed services multi-AZ with deletion protection", () => {
    const db = r.plan.resources.filter((x) => x.type === "aws:rds/instance:Instance");
    expect(db.every((d) => d.inputs.multiAz === true && d.inputs.deletionProtection === true)).toBe(true);
    expect(types(r.plan).filter((t) => t === "aws:docdb/clusterInstance:ClusterInstance")).toHaveLength(3);
    const mq = r.plan.resources.find((x) => x.type === "aws:mq/broker:Broker")!;
    expect(mq.inputs.deploymentMode).toBe("CLUSTER_MULTI_AZ");
  });
  it("enables audit logs to S3 and invitation-only sign-up in UI and backend alike", () => {
    expect(at(r.values, "auditLogs.enabled")).toBe(true);
    expect(at(r.values, "auditLogs.outputs.cloudb_s3.enabled")).toBe(true);
    expect(at(r.values, "automation.env.SECURED_SIGN_UP")).toBe("true");
    expect(at(r.values, "frontend.env.REACT_APP_SECURED_SIGN_UP")).toBe("true");
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
  });
});
