/** The conformance table: registry, resource defaults, JWT, credentials, audit logs and LLM providers. */
import { CHART, GENERATED, placeholder, S, minio, clouda, type Edit, section } from "./row.js";

const { rows, add } = section();

// Registry
add("registryCredentials.server", { na: placeholder, override: "registry.corp.example", required: true });
add("registryCredentials.username", { na: placeholder, override: "robot", required: true });
add("registryCredentials.password", { na: placeholder, secret: true, override: S("p"), required: true });
add("registryCredentials.email", { na: placeholder, override: "ops@example.com", invalid: "ops@", required: true });
add("image.imagePullSecrets", {
  default: CHART,
  override: "corp-pull",
  invalid: "",
  note: "a fixed secret name the reference hides",
});

// Resource defaults table (reference: Components, common rules)
const RESOURCE_TABLE: Array<[string, string | undefined, ...Array<string | undefined>]> = [
  ["frontend", "1", "128Mi", "100m", "2048Mi", "10000m"],
  ["swef", "1", "128Mi", "100m", "2048Mi", "10000m"],
  ["automation.services.web", "1", "2048Mi", "500m", "4096Mi", "2000m"],
  ["automation.services.jobs", "1", "1500Mi", "200m", "4096Mi", "2000m"],
  ["automation.services.jobs-priority", "1", "1500Mi", "200m", "4096Mi", "2000m"],
  ["automation.services.rpc", "1", "1024Mi", "100m", "2048Mi", "1000m"],
  ["ultron", "1", "1024Mi", "500m"],
  ["document_converter", "1", "2048Mi", "1024m"],
  ["localllm", "1", "4Gi", "2000m", "32Gi", "8000m"],
  ["llmproxy", "1", "512Mi", "250m"],
  ["boost", "1", "1024Mi", "250m"],
  ["browser", "1", "512Mi", "150m", "4Gi", "4000m"],
  ["html_conversion", "1", "512Mi", "256m"],
  ["html_conversion_worker", "2", "512Mi", "256m"],
  ["graphql", "1", "512Mi", "500m", "1Gi", "1000m"],
  ["docdb", undefined, "300Mi", "400m", "1500Mi", "1000m"],
  ["mq", undefined, "256Mi", "100m", "1000Mi", "1000m"],
  ["vectordb", undefined, "512Mi", "500m", "1Gi", "1000m"],
  ["smtp", "1", "256Mi", "100m", "512Mi", "500m"],
  ["mail", "1", "128Mi", "100m", "512Mi", "500m"],
  ["gateway", "2"],
  ["objstore", "4", "512Mi", "250m", "2Gi", "1000m"],
];
for (const [component, replicas, ...sizes] of RESOURCE_TABLE) {
  const on = component === "objstore" ? minio : undefined;
  if (replicas) {
    const path = `${component}.${component === "objstore" ? "replicas" : "replicaCount"}`;
    add(path, {
      default: Number(replicas),
      override: component === "objstore" ? 6 : 3,
      invalid: 0,
      on,
      note: component === "objstore" ? "4 in distributed mode; standalone is 1" : undefined,
    });
  }
  ["requests.memory", "requests.cpu", "limits.memory", "limits.cpu"].forEach((leaf, i) => {
    const value = sizes[i];
    if (value)
      add(`${component}.resources.${leaf}`, {
        default: value,
        override: leaf.endsWith("memory") ? "3Gi" : "1500m",
        invalid: "lots",
        on,
      });
  });
}

// JWT
add("jwt.secret", { secret: true, default: GENERATED("jwt", 64, { suggested: 64 }), override: S("jwt"), invalid: "" });
add("jwt.key", {
  default: CHART,
  override: "site-key",
  invalid: "",
  note: "a fixed self-hosted string the reference hides",
});
add("jwt.algorithm", { default: "HS512", override: "HS256", invalid: "RS1" });

// Credentials
const githostOn =
  (host: string): Edit =>
  (r) =>
    (r.credentials[host] = { app_name: "platform", client_id: "id", client_secret: S("gh") });
// The reference lists the fields under githost_a only; githost_b, the second git host, has the same.
for (const host of ["githost_a", "githost_b"]) {
  for (const leaf of ["app_name", "client_id", "client_secret"]) {
    add(`credentials.${host}.${leaf}`, {
      secret: leaf === "client_secret" || undefined,
      default: CHART,
      override: leaf === "client_secret" ? S(leaf) : "value",
      required: true,
      feature: githostOn(host),
      note: "unset: the integration stays off",
    });
  }
}
add("credentials.design.*", {
  param: "credentials.design",
  rendered: "credentials.design",
  secret: true,
  default: CHART,
  override: { ACCESS_TOKEN: S("design") },
  invalid: { ACCESS_TOKEN: "<REPLACE_WITH_YOUR_DESIGN_TOKEN>" },
  note: "the reference names the group but none of its members: any keys, rendered as given; unset: the integration stays off",
});
add("credentials.git_webhook_secret", { secret: true, default: CHART, override: S("hook") });
add("credentials.translator.translator_service", {
  default: "cloudb_translate",
  invalid: "deepl",
  override: "clouda",
  on: (r) =>
    (r.credentials.translator.clouda = {
      TRANSLATOR_TEXT_KEY: S("k"),
      TRANSLATOR_TEXT_ENDPOINT: "https://tr.example.com",
      TRANSLATOR_TEXT_LOCATION: "japaneast",
    }),
});
const trClouda: Edit = (r) =>
  (r.credentials.translator = {
    translator_service: "clouda",
    clouda: {
      TRANSLATOR_TEXT_KEY: S("k"),
      TRANSLATOR_TEXT_ENDPOINT: "https://tr.example.com",
      TRANSLATOR_TEXT_LOCATION: "japaneast",
    },
  });
add("credentials.translator.clouda.TRANSLATOR_TEXT_KEY", {
  na: placeholder,
  secret: true,
  override: S("k2"),
  required: true,
  on: trClouda,
});
add("credentials.translator.clouda.TRANSLATOR_TEXT_ENDPOINT", {
  na: placeholder,
  override: "https://tr2.example.com",
  required: true,
  on: trClouda,
});
add("credentials.translator.clouda.TRANSLATOR_TEXT_LOCATION", {
  na: placeholder,
  override: "westeurope",
  required: true,
  on: trClouda,
});
add("credentials.translator.cloudb.ACCESS_KEY_ID", {
  na: placeholder,
  secret: true,
  override: S("id2"),
  required: true,
});
add("credentials.translator.cloudb.SECRET_ACCESS_KEY", {
  na: placeholder,
  secret: true,
  override: S("s2"),
  required: true,
});
const trackerOn: Edit = (r) => {
  r.credentials.errortracker = {
    post_server_item_access_token: S("server"),
    post_client_item_access_token: S("client"),
  };
  r.credentials.boost = { SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN: S("tracker") };
};
add("credentials.errortracker.post_server_item_access_token", {
  secret: true,
  default: null,
  override: S("server2"),
  required: true,
  feature: trackerOn,
});
add("credentials.errortracker.post_client_item_access_token", {
  secret: true,
  default: null,
  override: S("client2"),
  feature: trackerOn,
});
add("credentials.graphql.GRAPHQL_ADMIN_SECRET", {
  secret: true,
  default: GENERATED("graphql-admin", 32),
  override: S("gql"),
  invalid: "",
});
add("credentials.boost.SERVICE_BOOST_API_KEY_MAIN", {
  secret: true,
  default: GENERATED("boost-main", 32, { suggested: 32 }),
  override: S("main"),
  invalid: "",
});
add("credentials.boost.SERVICE_BOOST_AUTO_API_KEY", {
  secret: true,
  default: GENERATED("graphql-admin", 32),
  override: S("auto"),
  invalid: "",
  note: "one value with the graphql admin secret: either side may be set",
});
add("credentials.boost.SERVICE_BOOST_LLMPROXY_KEY", {
  secret: true,
  default: GENERATED("boost-llmproxy", 32, { suggested: 32 }),
  override: S("proxy"),
  invalid: "",
});
add("credentials.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN", {
  na: placeholder,
  secret: true,
  override: S("tracker2"),
  required: true,
  on: trackerOn,
  note: "Required once error tracking is on (off by default)",
});
add("credentials.localllm.HUB_TOKEN", {
  na: placeholder,
  secret: true,
  override: S("hub"),
  note: "Required but unused by the package",
});
add("credentials.html_conversion.BEARER_TOKEN", {
  secret: true,
  default: GENERATED("html-conversion", 32, { suggested: 32 }),
  override: S("html"),
  invalid: "",
});

// Audit logs
const AUDIT_ENV_CHOICE =
  "the reference has placeholders, Required when the output is on: the program renders none (an empty env), so no placeholder reaches the chart, and demands the entries when the output is enabled";
const auditOn =
  (output: string, env: Record<string, string>): Edit =>
  (r) =>
    (r.auditLogs = { enabled: true, outputs: { cloudb_s3: { enabled: false }, [output]: { enabled: true, env } } });
const S3_ENV = { REGION: "ap-northeast-1", BUCKET: "audit", ACCESS_KEY_ID: S("a"), SECRET_ACCESS_KEY: S("b") };
add("auditLogs.enabled", {
  default: false,
  invalid: "maybe",
  override: true,
  on: (r) => (r.auditLogs = { outputs: { cloudb_s3: { env: S3_ENV } } }),
});
add("auditLogs.outputs.clouda_dataexplorer.enabled", { default: false, invalid: "maybe", override: true });
const DX_ENV = {
  TENANT_ID: "t",
  INGESTION_ENDPOINT: "https://ingest.example.com",
  TABLE: "audit",
  MAPPING_REFERENCE: "m",
  DATABASE_NAME: "d",
  CLIENT_ID: "c",
  CLIENT_SECRET: S("cs"),
};
add("auditLogs.outputs.clouda_dataexplorer.env.*", {
  rendered: "auditLogs.outputs.clouda_dataexplorer.env",
  choice: AUDIT_ENV_CHOICE,
  param: "auditLogs.outputs.clouda_dataexplorer.env",
  default: {},
  required: true,
  override: { ...DX_ENV, TABLE: "audit2" },
  feature: auditOn("clouda_dataexplorer", DX_ENV),
});
add("auditLogs.outputs.clouda_blob.enabled", { default: false, invalid: "maybe", override: true });
add("auditLogs.outputs.clouda_blob.env.*", {
  rendered: "auditLogs.outputs.clouda_blob.env",
  choice: AUDIT_ENV_CHOICE,
  param: "auditLogs.outputs.clouda_blob.env",
  default: {},
  required: true,
  override: { STORAGE_ACCOUNT_NAME: "audit2", BLOB_KEY: S("bk"), CONTAINER: "audit" },
  feature: auditOn("clouda_blob", { STORAGE_ACCOUNT_NAME: "audit", BLOB_KEY: S("bk"), CONTAINER: "audit" }),
});
add("auditLogs.outputs.cloudb_s3.enabled", { default: true, invalid: "maybe", override: false });
add("auditLogs.outputs.cloudb_s3.env.*", {
  rendered: "auditLogs.outputs.cloudb_s3.env",
  choice: AUDIT_ENV_CHOICE,
  param: "auditLogs.outputs.cloudb_s3.env",
  default: {},
  required: true,
  override: { ...S3_ENV, BUCKET: "audit2" },
  feature: auditOn("cloudb_s3", S3_ENV),
});

// LLM providers
add("llm.AI_MODE", { default: "direct", override: "clouda", invalid: "openai", feature: clouda });
add("llm.secretKeys.direct.API_KEYS", {
  na: placeholder,
  secret: true,
  override: S("keys"),
  invalid: "not a list",
  note: "Conditional; rendered [] when unset so no placeholder entry survives",
});
for (const k of ["API_KEY", "VISION_KEY", "EMBEDDING_KEY"])
  add(`llm.secretKeys.direct.${k}`, { na: placeholder, secret: true, override: S(k), required: true });
add("llm.secretKeys.direct.MAIN_MODEL_NAME", { na: placeholder, override: "gpt-4.1", required: true });
add("llm.secretKeys.clouda.KEY", {
  na: placeholder,
  secret: true,
  override: S("k"),
  required: true,
  base: "prod-azure",
});
add("llm.secretKeys.clouda.INSTANCE_NAME", {
  na: placeholder,
  override: "tenant-2",
  required: true,
  base: "prod-azure",
});
add("llm.secretKeys.clouda.KEYS", { na: placeholder, secret: true, override: S("keys"), invalid: "[1,2]" });
add("llm.secretKeys.clouda.INSTANCE_NAMES", { na: placeholder, override: '["a","b"]', invalid: "a,b" });
add("llm.secretKeys.clouda.VERSION", { default: "2024-10-21", override: "2025-01-01", invalid: "" });
add("llm.secretKeys.clouda.GLOBAL_KEYS", { na: placeholder, secret: true, override: S("gkeys"), invalid: "{}" });
add("llm.secretKeys.clouda.GLOBAL_INSTANCE_NAMES", { na: placeholder, override: '["g"]', invalid: "g" });
add("llm.secretKeys.clouda.GLOBAL_VERSION", {
  default: "2024-12-01-preview",
  override: "2025-01-01-preview",
  invalid: "",
});
add("llm.secretKeys.managed.CONVERSE_REGION", { default: "ap-northeast-1", override: "us-west-2", invalid: "" });
add("llm.secretKeys.managed.CONVERSE_GLOBAL_REGION", { default: "us-east-1", override: "eu-west-1", invalid: "" });
const managedOn: Edit = (r) =>
  (r.llm.secretKeys.managed = {
    CONVERSE_ACCESS_KEY_ID: S("m1"),
    CONVERSE_SECRET_ACCESS_KEY: S("m2"),
    CONVERSE_GLOBAL_ACCESS_KEY_ID: S("m3"),
    CONVERSE_GLOBAL_SECRET_ACCESS_KEY: S("m4"),
  });
for (const k of [
  "CONVERSE_ACCESS_KEY_ID",
  "CONVERSE_SECRET_ACCESS_KEY",
  "CONVERSE_GLOBAL_ACCESS_KEY_ID",
  "CONVERSE_GLOBAL_SECRET_ACCESS_KEY",
]) {
  add(`llm.secretKeys.managed.${k}`, {
    na: placeholder,
    secret: true,
    override: S(k),
    required: true,
    on: managedOn,
    note: "Required once the managed provider is used",
  });
}
// Required "when their provider is chosen", but llm.AI_MODE chooses only direct or clouda: these are
// further providers, added by setting the key, so they are not demanded (docs/deploying.md, conformance).
const further =
  "Required once its provider is added; llm.AI_MODE cannot choose it, so setting this key adds it and nothing demands it";
add("llm.secretKeys.providerb.API_KEY", { na: placeholder, secret: true, override: S("b"), note: further });
add("llm.secretKeys.providerc.GENERATIVE_API_KEY", { na: placeholder, secret: true, override: S("c"), note: further });

export const PLATFORM_ROWS = rows;
