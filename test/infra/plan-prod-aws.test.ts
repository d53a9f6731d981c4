import { beforeAll, describe, expect, it } from "vitest";
import {
  expectApiIrsa,
  expectApiOwnDbRole,
  expectEcrBuiltImage,
  expectRdsTls,
  expectProtected,
  optionsOf,
  expectApiObjectsDeployable,
  expectValidKubernetesObjects,
  at,
  expectNoPlaintextSecrets,
  planFor,
  types,
} from "./plan-helpers.js";
import { DOCDB_CA_FILE, DOCDB_CA_POSTRENDERER } from "../../infra/platform/postrender/docdb-ca.js";
import { evaluate } from "../../infra/policy/policies.js";
import type { PolicyInput } from "../../infra/policy/resource.js";
import { mutated, policyInputs } from "./policy-inputs.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("prod-aws");
});

describe("plan: prod-aws", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/prod-aws.plan.txt");
  });
  it("declares Kubernetes objects that validate against the official schemas, with no unknown field", async () => {
    await expectValidKubernetesObjects(r.plan);
  });
  it("declares API objects a real cluster and gateway take as meant", () => {
    expectApiObjectsDeployable(r.plan, "prod-aws");
  });
  it("gives the API an IAM role of its own for S3 (IRSA), not the static key the chart uses", () => {
    expectApiIrsa(r.plan);
  });
  it("connects the API as a role of its own, created by a Job before the Deployment (never as the master user)", () => {
    expectApiOwnDbRole(r.plan);
  });
  it("aborts incomplete multipart uploads in every bucket (a failed abort leaves no billed parts)", () => {
    const rules = r.plan.resources.filter(
      (x) => x.type === "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    );
    expect(rules).toHaveLength(4);
    for (const rule of rules)
      expect(
        (rule.inputs.rules as Array<{ abortIncompleteMultipartUpload: unknown }>)[0].abortIncompleteMultipartUpload,
      ).toEqual({ daysAfterInitiation: 1 });
  });
  it("expires noncurrent object versions in every bucket beside the multipart rule, once versioning is on", () => {
    const rules = r.plan.resources.filter(
      (x) => x.type === "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    );
    for (const rule of rules) {
      expect((rule.inputs.rules as Array<Record<string, unknown>>)[1]).toMatchObject({
        status: "Enabled",
        noncurrentVersionExpiration: { noncurrentDays: 30 },
        expiration: { expiredObjectDeleteMarker: true },
      });
      expect(optionsOf(r.plan, rule.type, rule.name).dependsOn).toEqual([
        rule.name.replace(/-lifecycle$/, "-versioning"),
      ]);
    }
  });
  it("keeps daily ElastiCache snapshots for the stack's retention, and a final one on delete", () => {
    const cache = r.plan.resources.find((x) => x.type === "aws:elasticache/replicationGroup:ReplicationGroup")!;
    expect(cache.inputs.snapshotRetentionLimit).toBe(14);
    expect(cache.inputs.finalSnapshotIdentifier).toMatch(/^data-cache-prod-aws-final-[0-9a-f]{8}$/);
  });
  it("protects every stateful resource, and names final snapshots uniquely per stack and creation", () => {
    expectProtected(r.plan, [
      "aws:rds/instance:Instance",
      "aws:elasticache/replicationGroup:ReplicationGroup",
      "aws:docdb/cluster:Cluster",
      "aws:docdb/clusterInstance:ClusterInstance",
      "aws:mq/broker:Broker",
      "aws:s3/bucket:Bucket",
      "aws:ecr/repository:Repository",
    ]);
    const rds = r.plan.resources
      .filter((x) => x.type === "aws:rds/instance:Instance")
      .map((x) => x.inputs.finalSnapshotIdentifier as string);
    expect(rds).toEqual([
      expect.stringMatching(/^data-sqldb-prod-aws-final-[0-9a-f]{8}$/),
      expect.stringMatching(/^data-vectordb-prod-aws-final-[0-9a-f]{8}$/),
    ]);
  });
  it("starts the platform release only once the DocumentDB instances exist and the API image is built", () => {
    expect(optionsOf(r.plan, "kubernetes:helm.sh/v3:Release", "platform-chart").dependsOn).toEqual([
      "data-docdb-0",
      "data-docdb-1",
      "data-docdb-2",
      "api-image",
    ]);
  });
  it("installs the release with the post-renderer that mounts the Amazon RDS CA its DocumentDB URI names", () => {
    const release = r.plan.resources.find((x) => x.type === "kubernetes:helm.sh/v3:Release")!;
    expect(release.inputs.postrender).toBe(DOCDB_CA_POSTRENDERER);
    const uri = new URL(String(at(r.values, "externalDocdb.mongodb_uri")));
    expect(uri.searchParams.get("tlsCAFile")).toBe(DOCDB_CA_FILE);
    expect(uri.searchParams.get("tls")).toBe("true");
  });
  it("gives Amazon MQ a consumer_timeout for long agent runs (its maximum), through a broker configuration", () => {
    const config = r.plan.resources.find((x) => x.type === "aws:mq/configuration:Configuration")!;
    expect(config.inputs).toMatchObject({ engineType: "RabbitMQ", data: "consumer_timeout = 2147483647\n" });
    const broker = r.plan.resources.find((x) => x.type === "aws:mq/broker:Broker")!;
    expect(broker.inputs.configuration).toEqual({ id: expect.any(String), revision: 1 });
  });
  it("builds the API image, pushes it to the ECR repository it creates (protected), and runs the pushed digest", () => {
    expectEcrBuiltImage(r.plan);
  });
  it("verifies RDS's certificate against the RDS CA bundle it mounts", () => {
    expectRdsTls(r.plan);
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
  it("ships the stack's agents to the pods as a ConfigMap the service reads, and exposes only /v1 and /mcp", () => {
    // Plan inputs are untyped JSON: read them as such.
    const inputsOf = (type: string, name = "") =>
      r.plan.resources.find((x) => x.type === type && x.name.includes(name))!.inputs as any;
    const agents = JSON.parse(inputsOf("kubernetes:core/v1:ConfigMap", "api-agents").data["agents.json"]);
    expect(agents.agents.map((a: { id: string }) => a.id)).toEqual(["support", "docs"]);
    const deployment = inputsOf("kubernetes:apps/v1:Deployment");
    const pod = deployment.spec.template.spec;
    const env = Object.fromEntries(
      pod.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    expect(env.AGENTS_FILE).toBe("/etc/agentport/agents.json");
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: "agents",
      mountPath: "/etc/agentport",
      readOnly: true,
    });
    expect(deployment.spec.template.metadata.annotations["agentport.dev/agents-checksum"]).toMatch(/^[0-9a-f]{64}$/);
    const ingress = inputsOf("kubernetes:networking.k8s.io/v1:Ingress", "api");
    expect(ingress.spec.rules[0].http.paths.map((p: { path: string }) => p.path)).toEqual(["/v1", "/mcp"]);
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
  });
  it("passes the policy pack", () => {
    expect(evaluate(policyInputs(r.plan))).toEqual([]);
  });
  /** What the pack reports once one resource of the plan is changed. */
  const refusals = (type: string, name: string, change: (x: PolicyInput) => void) =>
    evaluate(mutated(policyInputs(r.plan), type, name, change));
  it.each([
    [
      "an unprotected database",
      "aws:rds/instance:Instance",
      "data-sqldb",
      (x: PolicyInput) => (x.protect = false),
      /must be protected/,
    ],
    [
      "an unprotected bucket",
      "aws:s3/bucket:Bucket",
      "storage-bucket",
      (x: PolicyInput) => (x.protect = false),
      /must be protected/,
    ],
    [
      "a private bucket opened to public policies",
      "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
      "storage-bucket-public-access",
      (x: PolicyInput) => (x.props.restrictPublicBuckets = false),
      /leaves bucket storage-bucket public: restrictPublicBuckets/,
    ],
    [
      "public ACLs on the public bucket",
      "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
      "storage-public-bucket-public-access",
      (x: PolicyInput) => (x.props.ignorePublicAcls = false),
      /ignorePublicAcls must be true/,
    ],
    [
      "a bucket in another region",
      "aws:s3/bucket:Bucket",
      "storage-ultron-bucket",
      (x: PolicyInput) => (x.props.region = "us-east-1"),
      /is in us-east-1; cloud-B buckets must be in ap-northeast-1/,
    ],
    [
      "PostgreSQL without forced TLS",
      "aws:rds/parameterGroup:ParameterGroup",
      "data-sqldb-params",
      (x: PolicyInput) => (x.props.parameters = [{ name: "rds.force_ssl", value: "0" }]),
      /rds\.force_ssl is 0/,
    ],
    [
      "Redis without TLS in transit",
      "aws:elasticache/replicationGroup:ReplicationGroup",
      "data-cache",
      (x: PolicyInput) => (x.props.transitEncryptionEnabled = false),
      /transitEncryptionEnabled must be true/,
    ],
    [
      "a placeholder in the chart's values",
      "kubernetes:helm.sh/v3:Release",
      "platform-chart",
      (x: PolicyInput) => ((x.props.values as any).mailer.smtp_settings.password = "<replace_with_your_smtp_password>"),
      /values\.mailer\.smtp_settings\.password holds a package placeholder/,
    ],
    [
      "a short JWT secret",
      "kubernetes:helm.sh/v3:Release",
      "platform-chart",
      (x: PolicyInput) => ((x.props.values as any).jwt.secret = "x".repeat(63)),
      /values\.jwt\.secret is 63 characters; the reference suggests at least 64/,
    ],
  ])("refuses %s, naming the resource", (_what, type, name, change, message) => {
    const found = refusals(type, name, change);
    expect(found).toHaveLength(1);
    expect(found[0].message).toMatch(new RegExp(`^${name}[ -]`));
    expect(found[0].message).toMatch(message);
  });
});
