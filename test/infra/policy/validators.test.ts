/** The pack's validators at the edges a recorded plan does not reach: unknowns, providers, missing pieces. */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../../infra/policy/policies.js";
import { UNKNOWN, type PolicyInput } from "../../../infra/policy/resource.js";

const res = (
  type: string,
  name: string,
  props: Record<string, unknown> = {},
  more: Partial<PolicyInput> = {},
): PolicyInput => ({ type, name, props, protect: true, dependsOn: {}, ...more });
const messages = (rs: PolicyInput[]) => evaluate(rs).map((v) => v.message);
const BUCKET = "aws:s3/bucket:Bucket";
const block = (name: string, bucket: string, open = false) =>
  res(
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
    name,
    { blockPublicAcls: true, ignorePublicAcls: true, blockPublicPolicy: !open, restrictPublicBuckets: !open },
    { dependsOn: { bucket: [bucket] } },
  );

describe("policy validators", () => {
  it("skip secrets a preview cannot know yet (generated ones) and check the rest", () => {
    const release = res("kubernetes:helm.sh/v3:Release", "platform-chart", {
      values: { jwt: { secret: UNKNOWN }, credentials: { html_conversion: { BEARER_TOKEN: "short" } } },
    });
    expect(messages([release])).toEqual([
      expect.stringMatching(
        /^platform-chart .*values\.credentials\.html_conversion\.BEARER_TOKEN is 5 characters; the reference suggests at least 32/,
      ),
    ]);
  });

  it("take a bucket's region from its provider when the bucket declares none", () => {
    const bucket = (providerRegion: string) => [res(BUCKET, "b", {}, { providerRegion }), block("b-block", "b")];
    expect(messages(bucket("ap-northeast-1"))).toEqual([]);
    expect(messages(bucket("eu-west-1"))).toEqual([expect.stringMatching(/^b .*is in eu-west-1/)]);
  });

  it("refuse a bucket with no public access block, and allow public policies only on the public bucket", () => {
    expect(messages([res(BUCKET, "storage-bucket", { region: "ap-northeast-1" })])).toEqual([
      expect.stringMatching(/^storage-bucket .*has no public access block/),
    ]);
    const publicOne = [
      res(BUCKET, "storage-public-bucket", { region: "ap-northeast-1" }),
      block("p-block", "storage-public-bucket", true),
    ];
    expect(messages(publicOne)).toEqual([]);
  });

  it("let the vector store alone go without TLS, as the reference requires, on both clouds", () => {
    const params = (name: string) =>
      res("aws:rds/parameterGroup:ParameterGroup", name, { parameters: [{ name: "rds.force_ssl", value: "0" }] });
    const config = (name: string) =>
      res("azure-native:dbforpostgresql:Configuration", name, {
        configurationName: "require_secure_transport",
        value: "OFF",
      });
    expect(messages([params("data-vectordb-params"), config("data-vectordb-tls")])).toEqual([]);
    expect(messages([params("data-sqldb-params"), config("data-sqldb-tls")])).toEqual([
      expect.stringMatching(/^data-sqldb-params .*rds\.force_ssl is 0/),
      expect.stringMatching(/^data-sqldb-tls .*require_secure_transport is off/),
    ]);
  });

  it("refuse a persistent volume claim without protection", () => {
    expect(messages([res("kubernetes:core/v1:PersistentVolumeClaim", "data", {}, { protect: false })])).toEqual([
      expect.stringMatching(/^data .*must be protected/),
    ]);
  });

  it("exempt only the throwaway local stack from protection", () => {
    const release = (stack?: string) =>
      res("kubernetes:helm.sh/v3:Release", "platform-chart", {}, { protect: false, stack });
    expect(messages([release("local")])).toEqual([]);
    for (const stack of ["onprem", "staging-aws", "prod-aws", "localhost", undefined])
      expect(messages([release(stack)]), String(stack)).toEqual([expect.stringMatching(/must be protected/)]);
  });
});
