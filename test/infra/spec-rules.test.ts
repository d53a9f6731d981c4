/**
 * Rules of the deployment reference the validator enforces beyond single values: each refused
 * naming the path, and the valid stacks the reference allows accepted.
 */
import { describe, expect, it } from "vitest";
import { ACM_ANNOTATION } from "../../infra/constants.js";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { MINIMAL } from "./spec-paths.js";

type Edit = (raw: Record<string, any>) => void;

/** The issues of MINIMAL after an edit; `secure: true` reads every value as a `secure:` entry (the offline stand-ins are). */
function issuesAfter(edit: Edit): Issue[] {
  const raw = structuredClone(MINIMAL);
  edit(raw);
  const v = validateStack(raw);
  return v.ok ? [] : v.issues;
}

const STANDIN = "secret-standin:";

describe("a rule of the reference refused naming the path", () => {
  it.each<[string, string, Edit]>([
    [
      "a component's nameOverride (not to be changed)",
      "frontend.nameOverride",
      (r) => (r.frontend.nameOverride = "web"),
    ],
    [
      "a sub-service's fullnameOverride (not to be changed)",
      "automation.services.rpc.fullnameOverride",
      (r) => (r.automation = { services: { rpc: { fullnameOverride: "rpc" } } }),
    ],
    [
      "a data service's nameOverride (not to be changed)",
      "sqldb.nameOverride",
      (r) => (r.sqldb = { nameOverride: "pg" }),
    ],
    ["gateway plugins without acme", "gateway.env.plugins", (r) => (r.gateway.env = { plugins: "bundled,jwt" })],
    ["gateway plugins without jwt", "gateway.env.plugins", (r) => (r.gateway.env = { plugins: "bundled,acme" })],
    [
      "logs off while the log agent runs",
      "monitoring.logs.enabled",
      (r) => (r.monitoring = { logs: { enabled: false } }),
    ],
    [
      "an ACM annotation that is not an ARN",
      `gateway.proxy.annotations.${ACM_ANNOTATION}`,
      (r) => (r.gateway.proxy.annotations[ACM_ANNOTATION] = "my-certificate"),
    ],
    [
      "one ARN of two that is not one",
      `gateway.proxy.annotations.${ACM_ANNOTATION}`,
      (r) => (r.gateway.proxy.annotations[ACM_ANNOTATION] += ",my-certificate"),
    ],
    ["S3 buckets to create on Azure", "cloud.provider", (r) => (r.cloud = { provider: "azure" })],
    [
      "existing S3 buckets off AWS without the access key id",
      "storage.secret.cloudb.ACCESS_KEY_ID",
      (r) => ((r.cloud = { provider: "azure" }), (r.storage.existingBuckets = true)),
    ],
    [
      "S3 on premises (cloud.provider: none, the buckets the operator's) without the access key id",
      "storage.secret.cloudb.ACCESS_KEY_ID",
      (r) => (r.cloud = { provider: "none" }),
    ],
    [
      "existing S3 buckets off AWS without the secret access key",
      "storage.secret.cloudb.SECRET_ACCESS_KEY",
      (r) => (
        (r.cloud = { provider: "none" }),
        (r.storage.existingBuckets = true),
        (r.storage.secret.cloudb.ACCESS_KEY_ID = "AKIAEXAMPLE")
      ),
    ],
    [
      "existing buckets with another storage provider",
      "storage.existingBuckets",
      (r) => (r.storage = { provider: "Minio", existingBuckets: true }),
    ],
    [
      "a provider llm.AI_MODE cannot choose (providerb and providerc are further providers, added by their key)",
      "llm.AI_MODE",
      (r) => (r.llm.AI_MODE = "providerb"),
    ],
    [
      "a package placeholder left in a further provider's key",
      "llm.secretKeys.providerc.GENERATIVE_API_KEY",
      (r) => (r.llm.secretKeys.providerc = { GENERATIVE_API_KEY: "<REPLACE_WITH_YOUR_PROVIDERC_KEY>" }),
    ],
    [
      "unequal plaintext-readable internal secrets",
      "ultron.secret.PUBLIC_LLM_INTERNAL_SECRET",
      (r) => (
        (r.automation = { env: { PUBLIC_LLM_INTERNAL_SECRET: "a" } }),
        (r.ultron = { secret: { PUBLIC_LLM_INTERNAL_SECRET: "b" } })
      ),
    ],
  ])("%s", (_what, path, edit) => {
    const raw = structuredClone(MINIMAL);
    edit(raw);
    // Judged on form: every value counts as a `secure:` entry, so only the rule under test can refuse.
    const v = validateStack(raw, { isSecure: () => true });
    expect((v.ok ? [] : v.issues).map((i) => i.path)).toContain(path);
  });
});

describe("a valid stack the reference allows is accepted", () => {
  it.each<[string, Edit]>([
    [
      "both sides of the internal-secret equality set as secure entries",
      (r) => (
        (r.automation = { env: { PUBLIC_LLM_INTERNAL_SECRET: `${STANDIN}automation` } }),
        (r.ultron = { secret: { PUBLIC_LLM_INTERNAL_SECRET: `${STANDIN}ultron` } })
      ),
    ],
    [
      "both sides of the graphql admin equality set as secure entries",
      (r) =>
        (r.credentials = {
          ...r.credentials,
          graphql: { GRAPHQL_ADMIN_SECRET: `${STANDIN}gql` },
          boost: { SERVICE_BOOST_AUTO_API_KEY: `${STANDIN}auto` },
        }),
    ],
    [
      "two ACM certificates",
      (r) => (r.gateway.proxy.annotations[ACM_ANNOTATION] += ",arn:aws:acm:us-east-1:111122223333:certificate/second"),
    ],
    [
      "logs off with the log agent off",
      (r) => (r.monitoring = { logs: { enabled: false }, logagent: { enabled: false } }),
    ],
    ["more gateway plugins beside jwt and acme", (r) => (r.gateway.env = { plugins: "bundled,jwt,acme,cors" })],
    [
      "an on-premises cluster using existing S3 buckets with the keys given",
      (r) => (
        (r.cloud = { provider: "none" }),
        (r.storage.existingBuckets = true),
        Object.assign(r.storage.secret.cloudb, { ACCESS_KEY_ID: `${STANDIN}id`, SECRET_ACCESS_KEY: `${STANDIN}key` })
      ),
    ],
    [
      "an on-premises cluster (cloud.provider: none) using S3 and its bucket names, without storage.existingBuckets",
      (r) => (
        (r.cloud = { provider: "none" }),
        Object.assign(r.storage.secret.cloudb, { ACCESS_KEY_ID: `${STANDIN}id`, SECRET_ACCESS_KEY: `${STANDIN}key` })
      ),
    ],
    ["existing S3 buckets on AWS, the IAM user created for them", (r) => (r.storage.existingBuckets = true)],
    [
      "further providers providerb and providerc added beside the primary one, by their keys",
      (r) =>
        Object.assign(r.llm.secretKeys, {
          providerb: { API_KEY: `${STANDIN}b` },
          providerc: { GENERATIVE_API_KEY: `${STANDIN}c` },
        }),
    ],
  ])("%s", (_what, edit) => {
    expect(issuesAfter(edit)).toEqual([]);
  });
});

describe("a credential in plaintext is refused naming its path, whatever its form", () => {
  const remoteWrite =
    (config: Record<string, unknown>): Edit =>
    (r) =>
      (r.monitoring = {
        metrics: { remoteWrite: { enabled: true, configs: [{ url: "https://metrics.example.org/write", ...config }] } },
      });
  it.each<[string, string, Edit]>([
    [
      "a bearer token in a remote-write Authorization header",
      "monitoring.metrics.remoteWrite.configs[0].headers.Authorization",
      remoteWrite({ headers: { Authorization: "Bearer abc" } }),
    ],
    [
      "a remote-write authorization.credentials",
      "monitoring.metrics.remoteWrite.configs[0].authorization.credentials",
      remoteWrite({ authorization: { type: "Bearer", credentials: "abc" } }),
    ],
    [
      "a remote-write bearer_token",
      "monitoring.metrics.remoteWrite.configs[0].bearer_token",
      remoteWrite({ bearer_token: "abc" }),
    ],
    [
      "an API key header",
      "monitoring.metrics.remoteWrite.configs[0].headers.X-Api-Key",
      remoteWrite({ headers: { "X-Api-Key": "abc" } }),
    ],
    [
      "a further provider's key (providerb)",
      "llm.secretKeys.providerb.API_KEY",
      (r) => (r.llm.secretKeys.providerb = { API_KEY: "sk-plain" }),
    ],
    [
      "a further provider's key (providerc)",
      "llm.secretKeys.providerc.GENERATIVE_API_KEY",
      (r) => (r.llm.secretKeys.providerc = { GENERATIVE_API_KEY: "plain" }),
    ],
    ["a number as a secret", "mq.auth.password", (r) => (r.mq = { auth: { password: 42 } })],
    [
      "a number as a boost instance",
      "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_4O",
      (r) => (r.credentials.boost = { SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_4O: 42 }),
    ],
  ])("%s", (_what, path, edit) => {
    expect(issuesAfter(edit).map((i) => i.path)).toContain(path);
  });

  it("a toleration's or an affinity term's key is no secret", () => {
    const tolerations = [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }];
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["agents"] }] }],
        },
      },
    };
    expect(issuesAfter((r) => (r.frontend = { ...r.frontend, tolerations, affinity }))).toEqual([]);
  });
});

describe("a component's fixed image is refused by its own path", () => {
  it.each<[string, Edit]>([
    ["image.frontend.tag", (r) => (r.image = { frontend: { tag: "v0.0.1" } })],
    ["frontend.image.tag", (r) => (r.frontend = { ...r.frontend, image: { tag: "v0.0.1" } })],
    ["image.boost.repository", (r) => (r.image = { boost: { repository: "registry.example.org/boost" } })],
  ])("%s", (path, edit) => {
    expect(issuesAfter(edit)).toEqual([{ path, message: expect.stringMatching(/^is fixed by the release/) }]);
  });
});
