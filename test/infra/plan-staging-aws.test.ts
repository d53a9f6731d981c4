import { beforeAll, describe, expect, it } from "vitest";
import {
  expectApiIrsa,
  expectApiOwnDbRole,
  expectEcrBuiltImage,
  expectRdsTls,
  expectApiObjectsDeployable,
  expectValidKubernetesObjects,
  at,
  expectNoPlaintextSecrets,
  planFor,
  types,
} from "./plan-helpers.js";
import { evaluate } from "../../infra/policy/policies.js";
import { policyInputs } from "./policy-inputs.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("staging-aws");
});

describe("plan: staging-aws (S3 + managed data services)", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/staging-aws.plan.txt");
  });
  it("declares Kubernetes objects that validate against the official schemas, with no unknown field", async () => {
    await expectValidKubernetesObjects(r.plan);
  });
  it("declares API objects a real cluster and gateway take as meant", () => {
    expectApiObjectsDeployable(r.plan, "staging-aws");
  });
  it("gives the API an IAM role of its own for S3 (IRSA), not the static key the chart uses", () => {
    expectApiIrsa(r.plan);
  });
  it("connects the API as a role of its own, created by a Job before the Deployment (never as the master user)", () => {
    expectApiOwnDbRole(r.plan);
  });
  it("builds the API image, pushes it to the ECR repository it creates (protected), and runs the pushed digest", () => {
    expectEcrBuiltImage(r.plan);
  });
  it("verifies RDS's certificate against the RDS CA bundle it mounts", () => {
    expectRdsTls(r.plan);
  });
  it("creates the managed services and switches the in-cluster ones off", () => {
    const t = types(r.plan);
    expect(t.filter((x) => x === "aws:rds/instance:Instance")).toHaveLength(2);
    expect(t).toContain("aws:elasticache/replicationGroup:ReplicationGroup");
    expect(t).toContain("aws:docdb/cluster:Cluster");
    expect(t).toContain("aws:mq/broker:Broker");
    for (const svc of ["sqldb", "cache", "docdb", "mq", "vectordb"]) expect(at(r.values, `${svc}.enabled`)).toBe(false);
    expect(at(r.values, "externalSqldb.enabled")).toBe(true);
    expect(at(r.values, "externalCache.useTls")).toBe(true);
    expect(at(r.values, "externalVectordb.sslMode")).toBe("disable");
    expect(at(r.values, "externalMq.host")).toMatch(/^[a-z0-9.-]+$/);
  });
  it("keeps every managed service private", () => {
    for (const res of r.plan.resources) {
      if (res.type === "aws:rds/instance:Instance" || res.type === "aws:mq/broker:Broker")
        expect(res.inputs.publiclyAccessible).toBe(false);
      if (res.type === "aws:ec2/securityGroup:SecurityGroup") {
        expect(JSON.stringify(res.inputs.ingress)).not.toMatch(/0\.0\.0\.0\/0|::\/0/);
      }
    }
    const cache = r.plan.resources.find((x) => x.type === "aws:elasticache/replicationGroup:ReplicationGroup")!;
    expect(cache.inputs.transitEncryptionEnabled).toBe(true);
  });
  it("creates the four buckets in ap-northeast-1 with the IAM identity scoped to them", () => {
    const buckets = r.plan.resources.filter((x) => x.type === "aws:s3/bucket:Bucket");
    expect(buckets.map((b) => b.inputs.bucket).sort()).toEqual([
      "example-agents-staging",
      "example-agents-staging-export",
      "example-agents-staging-public",
      "example-agents-staging-ultron",
    ]);
    expect(new Set(buckets.map((b) => b.inputs.region))).toEqual(new Set(["ap-northeast-1"]));
    const blocks = r.plan.resources.filter((x) => x.type === "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock");
    expect(blocks.filter((b) => b.inputs.blockPublicPolicy === false)).toHaveLength(1);
    expect(at(r.values, "storage.secret.cloudb.REGION")).toBe("ap-northeast-1");
    const policy = r.plan.resources.find((x) => x.type === "aws:iam/userPolicy:UserPolicy")!;
    expect(String(policy.inputs.policy)).toContain("arn:aws:s3:::example-agents-staging-ultron/*");
    expect(String(policy.inputs.policy)).not.toContain('"Resource":"*"');
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
  });
  it("passes the policy pack", () => {
    expect(evaluate(policyInputs(r.plan))).toEqual([]);
  });
});
