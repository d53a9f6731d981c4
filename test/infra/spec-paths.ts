/**
 * The conformance checklist: one row per parameter path of the deployment reference
 * (docs/spec/deployment.md), in the order it names them. spec-paths.test.ts runs every check a
 * row declares and fails when this table and the reference's paths drift apart.
 *
 * Columns of a row (each optional; a missing one says the check does not apply, `note` says why):
 * - default: what the values render at the path when the stack leaves it unset. CHART = nothing
 *   (the chart's own default applies, the reference hides it); GENERATED(v) = the generated secret.
 * - override: a value a stack may set, rendered as given (secrets: accepted as a `secure:` entry).
 * - invalid: a value the validator refuses, naming the path.
 * - fixed: a changed value refused because the reference says it is not to be changed.
 * - required: the value is demanded (refused naming the path when missing) with the feature on.
 * - base: the stack the checks start from: MINIMAL (below), a repository stack, plus `on` (edit);
 *   `feature` switches a feature on for the override, invalid and required checks only (the
 *   default and the fixed value are checked with the feature as the stack leaves it).
 */
import { apiScrapeConfig } from "../../infra/api/scrape.js";
import { ACM_ANNOTATION } from "../../infra/constants.js";

export const CHART = Symbol("left to the chart");
export const GENERATED = (value: unknown) => ({ generated: value });
type Generated = ReturnType<typeof GENERATED>;
export const isGenerated = (v: unknown): v is Generated => !!v && typeof v === "object" && "generated" in v;

/** A stack edit (feature switches, settings a check needs). */
export type Edit = (raw: Record<string, any>) => void;

export interface SpecRow {
  /** The path as the reference writes it. */
  path: string;
  /** Where our values render it, when that differs (a name the reference hides). */
  rendered?: string;
  /** Where a stack sets it and a refusal names it, when that differs. */
  param?: string;
  /** Where the override is set, when param is a pattern (one concrete key of it). */
  setAt?: string;
  default?: unknown;
  override?: unknown;
  invalid?: unknown;
  fixed?: unknown;
  required?: true;
  /** Sensitive: overrides are given as `secure:` entries. */
  secret?: true;
  base?: string;
  on?: Edit;
  feature?: Edit;
  /** How the required check leaves the value out, when deleting `param` is not how. */
  unset?: Edit;
  /** Entries the stack adds after a list's own (default or override), e.g. the API's scrape job. */
  appended?: unknown[];
  note?: string;
  /** Columns that do not apply to the row, each with its reason (NA); the totals count them apart. */
  na?: { override?: string; default?: string };
}

/** Why a column does not apply to a row. */
export const NA = {
  fixed: "not to be changed: the reference's or the package's own value",
  follows: "follows another parameter, which a stack sets instead",
  placeholder: "the reference's default is a placeholder (or empty) that the stack must replace",
  none: "the reference shows no default",
} as const;
const fixedValue = { override: NA.fixed };
const placeholder = { default: NA.placeholder };

const S = (path: string) => `secret-standin:${path}`;

/** The smallest stack that validates: everything at the reference's defaults. */
export const MINIMAL: Record<string, any> = {
  cloud: { provider: "aws" },
  platform: { repository: "https://charts.example.com/platform", chart: "platform", version: "26.2.16" },
  api: { image: "ghcr.io/example/agentport:0.1.0" },
  ingress: { domainName: "platform.example.com", chatDomainName: "chat.example.com" },
  gateway: { proxy: { annotations: { [ACM_ANNOTATION]: "arn:aws:acm:ap-northeast-1:111122223333:certificate/minimal" } } },
  storage: { secret: { cloudb: { BUCKET: "min-main", PUBLIC_BUCKET: "min-public", EXPORT_PROJECT_BUCKET: "min-export", ULTRON_BUCKET: "min-ultron" } } },
  company: { domain: "example.com", name: "Example", brand_name: "Example", pages: { terms_of_service_url: "https://example.com/terms", privacy_policy_url: "https://example.com/privacy" } },
  mailer: { smtp_settings: { address: "smtp.example.com", user_name: "mailer", password: S("mailer") }, default_from_email: "noreply@example.com" },
  registryCredentials: { server: "registry.example.com", username: "puller", password: S("registry"), email: "puller@example.com" },
  credentials: { translator: { cloudb: { ACCESS_KEY_ID: S("tr-id"), SECRET_ACCESS_KEY: S("tr-secret") } } },
  llm: { secretKeys: { direct: { API_KEY: S("api"), VISION_KEY: S("vision"), EMBEDDING_KEY: S("embed"), MAIN_MODEL_NAME: "gpt-4o" } } },
  frontend: { env: { REACT_APP_CLIENT_ID: "web", REACT_APP_CLIENT_SECRET: S("client"), REACT_APP_CAPTCHA_SITE_KEY: S("captcha"), ICON_FONT_REGISTRY_TOKEN: S("icons") } },
};

/** Objstore storage on: the objstore component and its settings are used. */
const minio: Edit = (r) => (r.storage = { provider: "Minio" });
const clouda: Edit = (r) => {
  r.llm.AI_MODE = "clouda";
  r.llm.secretKeys.clouda = { KEY: S("ck"), INSTANCE_NAME: "tenant-jpe" };
  r.credentials.boost = { SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_4O: S("inst") };
};
const auditOn = (output: string, env: Record<string, string>): Edit => (r) => (r.auditLogs = { enabled: true, outputs: { cloudb_s3: { enabled: false }, [output]: { enabled: true, env } } });

const rows: SpecRow[] = [];
const add = (path: string, c: Omit<SpecRow, "path"> = {}) => rows.push({ path, ...c });

// Registry
add("registryCredentials.server", { na: placeholder, override: "registry.corp.example", required: true });
add("registryCredentials.username", { na: placeholder, override: "robot", required: true });
add("registryCredentials.password", { na: placeholder, secret: true, override: S("p"), required: true });
add("registryCredentials.email", { na: placeholder, override: "ops@example.com", invalid: "ops@", required: true });
add("image.imagePullSecrets", { default: CHART, override: "corp-pull", invalid: "", note: "a fixed secret name the reference hides" });

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
    add(path, { default: Number(replicas), override: component === "objstore" ? 6 : 3, invalid: 0, on, note: component === "objstore" ? "4 in distributed mode; standalone is 1" : undefined });
  }
  ["requests.memory", "requests.cpu", "limits.memory", "limits.cpu"].forEach((leaf, i) => {
    const value = sizes[i];
    if (value) add(`${component}.resources.${leaf}`, { default: value, override: leaf.endsWith("memory") ? "3Gi" : "1500m", invalid: "lots", on });
  });
}

// JWT
add("jwt.secret", { secret: true, default: GENERATED("S-jwt"), override: S("jwt"), invalid: "" });
add("jwt.key", { default: CHART, override: "site-key", invalid: "", note: "a fixed self-hosted string the reference hides" });
add("jwt.algorithm", { default: "HS512", override: "HS256", invalid: "RS1" });

// Credentials
const githostOn = (host: string): Edit => (r) => (r.credentials[host] = { app_name: "platform", client_id: "id", client_secret: S("gh") });
for (const leaf of ["app_name", "client_id", "client_secret"]) {
  add(`credentials.githost_a.${leaf}`, { secret: leaf === "client_secret" || undefined, default: CHART, override: leaf === "client_secret" ? S(leaf) : "value", required: true, feature: githostOn("githost_a"), note: "unset: the integration stays off" });
}
add("credentials.git_webhook_secret", { secret: true, default: CHART, override: S("hook") });
add("credentials.translator.translator_service", { default: "cloudb_translate", invalid: "deepl", override: "clouda", on: (r) => (r.credentials.translator.clouda = { TRANSLATOR_TEXT_KEY: S("k"), TRANSLATOR_TEXT_ENDPOINT: "https://tr.example.com", TRANSLATOR_TEXT_LOCATION: "japaneast" }) });
const trClouda: Edit = (r) => (r.credentials.translator = { translator_service: "clouda", clouda: { TRANSLATOR_TEXT_KEY: S("k"), TRANSLATOR_TEXT_ENDPOINT: "https://tr.example.com", TRANSLATOR_TEXT_LOCATION: "japaneast" } });
add("credentials.translator.clouda.TRANSLATOR_TEXT_KEY", { na: placeholder, secret: true, override: S("k2"), required: true, on: trClouda });
add("credentials.translator.clouda.TRANSLATOR_TEXT_ENDPOINT", { na: placeholder, override: "https://tr2.example.com", required: true, on: trClouda });
add("credentials.translator.clouda.TRANSLATOR_TEXT_LOCATION", { na: placeholder, override: "westeurope", required: true, on: trClouda });
add("credentials.translator.cloudb.ACCESS_KEY_ID", { na: placeholder, secret: true, override: S("id2"), required: true });
add("credentials.translator.cloudb.SECRET_ACCESS_KEY", { na: placeholder, secret: true, override: S("s2"), required: true });
const trackerOn: Edit = (r) => {
  r.credentials.errortracker = { post_server_item_access_token: S("server"), post_client_item_access_token: S("client") };
  r.credentials.boost = { SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN: S("tracker") };
};
add("credentials.errortracker.post_server_item_access_token", { secret: true, default: null, override: S("server"), required: true, feature: trackerOn });
add("credentials.errortracker.post_client_item_access_token", { secret: true, default: null, override: S("client2"), feature: trackerOn });
add("credentials.graphql.GRAPHQL_ADMIN_SECRET", { secret: true, default: GENERATED("S-graphql-admin"), override: S("gql"), invalid: "" });
add("credentials.boost.SERVICE_BOOST_API_KEY_MAIN", { secret: true, default: GENERATED("S-boost-main"), override: S("main"), invalid: "" });
add("credentials.boost.SERVICE_BOOST_AUTO_API_KEY", { secret: true, default: GENERATED("S-graphql-admin"), override: S("auto"), invalid: "", note: "one value with the graphql admin secret: either side may be set" });
add("credentials.boost.SERVICE_BOOST_LLMPROXY_KEY", { secret: true, default: GENERATED("S-boost-llmproxy"), override: S("proxy"), invalid: "" });
add("credentials.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN", { na: placeholder, secret: true, override: S("tracker"), required: true, on: trackerOn, note: "Required once error tracking is on (off by default)" });
add("credentials.localllm.HUB_TOKEN", { na: placeholder, secret: true, override: S("hub"), note: "Required but unused by the package" });
add("credentials.html_conversion.BEARER_TOKEN", { secret: true, default: GENERATED("S-html"), override: S("html"), invalid: "" });

// Audit logs
const S3_ENV = { REGION: "ap-northeast-1", BUCKET: "audit", ACCESS_KEY_ID: S("a"), SECRET_ACCESS_KEY: S("b") };
add("auditLogs.enabled", { default: false, invalid: "maybe", override: true, on: (r) => (r.auditLogs = { outputs: { cloudb_s3: { env: S3_ENV } } }) });
add("auditLogs.outputs.clouda_dataexplorer.enabled", { default: false, invalid: "maybe", override: true });
const DX_ENV = { TENANT_ID: "t", INGESTION_ENDPOINT: "https://ingest.example.com", TABLE: "audit", MAPPING_REFERENCE: "m", DATABASE_NAME: "d", CLIENT_ID: "c", CLIENT_SECRET: S("cs") };
add("auditLogs.outputs.clouda_dataexplorer.env.*", { rendered: "auditLogs.outputs.clouda_dataexplorer.env", param: "auditLogs.outputs.clouda_dataexplorer.env", default: {}, required: true, override: DX_ENV, feature: auditOn("clouda_dataexplorer", DX_ENV) });
add("auditLogs.outputs.clouda_blob.enabled", { default: false, invalid: "maybe", override: true });
add("auditLogs.outputs.clouda_blob.env.*", { rendered: "auditLogs.outputs.clouda_blob.env", param: "auditLogs.outputs.clouda_blob.env", default: {}, required: true, override: { STORAGE_ACCOUNT_NAME: "audit", BLOB_KEY: S("bk"), CONTAINER: "audit" }, feature: auditOn("clouda_blob", { STORAGE_ACCOUNT_NAME: "audit", BLOB_KEY: S("bk"), CONTAINER: "audit" }) });
add("auditLogs.outputs.cloudb_s3.enabled", { default: true, invalid: "maybe", override: false });
add("auditLogs.outputs.cloudb_s3.env.*", { rendered: "auditLogs.outputs.cloudb_s3.env", param: "auditLogs.outputs.cloudb_s3.env", default: {}, required: true, override: S3_ENV, feature: auditOn("cloudb_s3", S3_ENV) });

// LLM providers
add("llm.AI_MODE", { default: "direct", override: "clouda", invalid: "openai", feature: clouda });
add("llm.secretKeys.direct.API_KEYS", { na: placeholder, secret: true, override: S("keys"), invalid: "not a list", note: "Conditional; rendered [] when unset so no placeholder entry survives" });
for (const k of ["API_KEY", "VISION_KEY", "EMBEDDING_KEY"]) add(`llm.secretKeys.direct.${k}`, { na: placeholder, secret: true, override: S(k), required: true });
add("llm.secretKeys.direct.MAIN_MODEL_NAME", { na: placeholder, override: "gpt-4.1", required: true });
add("llm.secretKeys.clouda.KEY", { na: placeholder, secret: true, override: S("k"), required: true, base: "prod-azure" });
add("llm.secretKeys.clouda.INSTANCE_NAME", { na: placeholder, override: "tenant-2", required: true, base: "prod-azure" });
add("llm.secretKeys.clouda.KEYS", { na: placeholder, secret: true, override: S("keys"), invalid: "[1,2]" });
add("llm.secretKeys.clouda.INSTANCE_NAMES", { na: placeholder, override: '["a","b"]', invalid: "a,b" });
add("llm.secretKeys.clouda.VERSION", { default: "2024-10-21", override: "2025-01-01", invalid: "" });
add("llm.secretKeys.clouda.GLOBAL_KEYS", { na: placeholder, secret: true, override: S("gkeys"), invalid: "{}" });
add("llm.secretKeys.clouda.GLOBAL_INSTANCE_NAMES", { na: placeholder, override: '["g"]', invalid: "g" });
add("llm.secretKeys.clouda.GLOBAL_VERSION", { default: "2024-12-01-preview", override: "2025-01-01-preview", invalid: "" });
add("llm.secretKeys.managed.CONVERSE_REGION", { default: "ap-northeast-1", override: "us-west-2", invalid: "" });
add("llm.secretKeys.managed.CONVERSE_GLOBAL_REGION", { default: "us-east-1", override: "eu-west-1", invalid: "" });
const managedOn: Edit = (r) => (r.llm.secretKeys.managed = { CONVERSE_ACCESS_KEY_ID: S("m1"), CONVERSE_SECRET_ACCESS_KEY: S("m2"), CONVERSE_GLOBAL_ACCESS_KEY_ID: S("m3"), CONVERSE_GLOBAL_SECRET_ACCESS_KEY: S("m4") });
for (const k of ["CONVERSE_ACCESS_KEY_ID", "CONVERSE_SECRET_ACCESS_KEY", "CONVERSE_GLOBAL_ACCESS_KEY_ID", "CONVERSE_GLOBAL_SECRET_ACCESS_KEY"]) {
  add(`llm.secretKeys.managed.${k}`, { na: placeholder, secret: true, override: S(k), required: true, on: managedOn, note: "Required once the managed provider is used" });
}
add("llm.secretKeys.providerb.API_KEY", { na: placeholder, secret: true, override: S("b") });
add("llm.secretKeys.providerc.GENERATIVE_API_KEY", { na: placeholder, secret: true, override: S("c") });

// Ingress
add("ingress.enabled", { default: true, override: false, invalid: "yes" });
add("ingress.domainName", { na: placeholder, override: "agents.example.org", required: true });
add("ingress.chatDomainName", { na: placeholder, override: "chat.example.org", required: true });
add("ingress.className", { default: "gateway", override: "nginx", invalid: "" });
add("ingress.tls", { default: [], override: [{ secretName: "tls", hosts: ["platform.example.com"] }], invalid: "yes", feature: (r) => (r.api.tls = [{ secretName: "api-tls" }]) });
add("ingress.objstore.enabled", { default: false, invalid: "yes", override: true, on: (r) => (minio(r), (r.ingress.objstore = { domainName: "s3.example.com" })) });
add("ingress.objstore.console.enabled", { default: false, invalid: "yes", override: true, on: (r) => (minio(r), (r.ingress.objstore = { console: { domainName: "console.example.com" } })) });
add("ingress.objstore.domainName", { na: placeholder, override: "s3.example.org", required: true, on: (r) => (minio(r), (r.ingress.objstore = { enabled: true, domainName: "s3.example.com" })) });
add("ingress.objstore.console.domainName", { na: placeholder, override: "console.example.org", required: true, on: (r) => (minio(r), (r.ingress.objstore = { console: { enabled: true, domainName: "console.example.com" } })) });
add("ingress.objstore.annotations", { default: {}, override: { a: "b" }, invalid: "x" });
add("ingress.objstore.console.annotations", { default: {}, override: { a: "b" }, invalid: "x" });
add("ingress.objstore.tls", { default: [], override: [{ secretName: "s3" }], invalid: "x" });
add("ingress.objstore.console.tls", { default: [], override: [{ secretName: "console" }], invalid: "x" });
for (const sub of ["dashboards", "metrics"]) {
  add(`ingress.${sub}.enabled`, { default: true, override: false, invalid: "yes" });
  add(`ingress.${sub}.type`, { default: "subdomain", override: "path", invalid: "host" });
  add(`ingress.${sub}.domain`, { default: `${sub}.platform.example.com`, override: `${sub}.example.org`, invalid: `https://${sub}.example.org`, note: "<your-domain> is ingress.domainName" });
  add(`ingress.${sub}.pathPrefix`, { default: `/${sub}`, override: `/x-${sub}`, invalid: "" });
}
add("ingress.annotations.strip-path", { default: "true", override: "false", invalid: "sometimes" });

// Storage providers (rendered by the storage components: the plan tests assert storage.secret)
const note = "rendered by the storage component (stored plans)";
add("storage.secret.objstore.ACCESS_KEY_ID", { secret: true, default: GENERATED("S-objstore-access"), override: S("ak"), invalid: "", on: minio, note });
add("storage.secret.objstore.SECRET_ACCESS_KEY", { secret: true, default: GENERATED("S-objstore-secret"), override: S("sk"), invalid: "", on: minio, note });
add("storage.secret.objstore.REGION", { na: fixedValue, default: "us-east-1", fixed: "eu-west-1", on: minio, note });
for (const k of ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"]) add(`storage.secret.objstore.${k}`, { na: { default: NA.none }, override: `my-${k.toLowerCase().replaceAll("_", "-")}`, invalid: "", on: minio, note });
add("storage.secret.objstore.FORCE_PATH_STYLE", { na: fixedValue, default: "true", fixed: "false", on: minio, note });
add("storage.secret.cloudb.ACCESS_KEY_ID", { na: { default: NA.none }, secret: true, override: S("ak"), invalid: "", note: `${note}; taken from the IAM key created for the buckets unless set` });
add("storage.secret.cloudb.SECRET_ACCESS_KEY", { na: { default: NA.none }, secret: true, override: S("sk"), invalid: "", note });
add("storage.secret.cloudb.REGION", { na: { ...fixedValue, default: NA.none }, fixed: "us-east-1", note });
for (const k of ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"]) add(`storage.secret.cloudb.${k}`, { na: { default: NA.none }, override: `other-${k.toLowerCase().replaceAll("_", "-")}`, invalid: "Bad_Bucket", required: true, note });
add("storage.secret.clouda.STORAGE_ACCOUNT_NAME", { na: { default: NA.none }, override: "otheraccount", invalid: "Not-Valid", required: true, base: "prod-azure", note });
add("storage.secret.clouda.STORAGE_ACCESS_KEY", { na: { default: NA.none }, secret: true, override: S("key"), base: "prod-azure", note: `${note}; read from the created account unless set` });
for (const k of ["CONTAINER", "ULTRON_CONTAINER", "EXPORT_PROJECT_CONTAINER", "PUBLIC_CONTAINER"]) add(`storage.secret.clouda.${k}`, { na: { default: NA.none }, override: `other-${k.toLowerCase()}`, required: true, base: "prod-azure", note });

// Company and mail
for (const k of ["domain", "name", "brand_name"]) add(`company.${k}`, { na: placeholder, override: `new-${k}`, required: true });
add("company.language", { default: "ja", override: "en", invalid: "fr" });
add("company.pages.terms_of_service_url", { na: placeholder, override: "https://example.org/terms", invalid: "example.org/terms", required: true });
add("company.pages.privacy_policy_url", { na: placeholder, override: "https://example.org/privacy", invalid: "https://<your-domain>/privacy", required: true });
add("mailer.smtp_settings.address", { na: placeholder, override: "mail.example.org", required: true });
add("mailer.smtp_settings.user_name", { na: placeholder, override: "relay", required: true });
add("mailer.smtp_settings.password", { na: placeholder, secret: true, override: S("pw"), required: true });
add("mailer.default_from_email", { na: placeholder, override: "hello@example.org", invalid: "hello", required: true });
const smtpOn: Edit = (r) => (r.smtp = { enabled: true, config: { hostname: "smtp.example.com" }, auth: { users: [{ username: "mailer" }] } });
add("smtp.enabled", { default: false, override: true, invalid: "yes", on: (r) => (r.smtp = { config: { hostname: "smtp.example.com" } }) });
add("smtp.config.hostname", { na: placeholder, override: "mx.example.org", required: true, on: smtpOn });
add("smtp.config.allowedNetworks", { default: "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16", override: "10.1.0.0/16", invalid: "everyone" });
add("smtp.auth.enabled", { default: false, override: true, invalid: "yes" });
add("smtp.auth.users[0].username", { default: CHART, override: "relay", invalid: "", required: true, feature: (r) => (r.smtp = { auth: { enabled: true, users: [{ username: "relay" }] } }), note: "a fixed user name the reference hides: the package's unless a stack names it, which smtp.auth needs" });
add("smtp.auth.users[0].password", { secret: true, default: GENERATED("S-smtp"), override: S("smtp"), on: smtpOn });
add("smtp.service.type", { default: "ClusterIP", override: "NodePort", invalid: "Ingress" });
add("smtp.service.port", { default: 25, override: 2525, invalid: 70000 });
add("smtp.service.targetPort", { default: 587, override: 2587, invalid: 0 });
add("smtp.image.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });
add("mail.enabled", { default: false, override: true, invalid: "yes" });
add("mail.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("mail.persistence.size", { default: "1Gi", override: "2Gi", invalid: "" });
add("mail.persistence.accessModes", { default: ["ReadWriteOnce"], override: ["ReadWriteMany"], invalid: "ReadWriteOnce" });
add("mail.persistence.existingClaim", { default: "", override: "mail-pvc", invalid: 3 });
add("mail.persistence.storageClass", { default: "", override: "fast", invalid: 3 });
add("mail.logrotate.enabled", { default: true, override: false, invalid: "yes" });
add("mail.logrotate.path", { default: "/var/log/mail.log", override: "/var/log/m.log", invalid: "" });
add("mail.logrotate.rotate", { default: 7, override: 14, invalid: 0 });
add("mail.logrotate.maxage", { default: 30, override: 60, invalid: 0 });
add("mail.logrotate.maxsize", { default: "100M", override: "200M", invalid: "" });
add("mail.config.postfix.mynetworks", { default: "", override: "10.0.0.0/8", invalid: 3 });
add("mail.mountSecret.enabled", { default: false, override: true, invalid: "yes" });
add("mail.mountSecret.path", { default: "/etc/opendkim/keys", override: "/keys", invalid: "" });
add("mail.mountSecret.data", { default: {}, override: { "mail.private": S("dkim") }, invalid: "x" });

// Component environment values
add("frontend.env.REACT_APP_PROJECT_ENV", { default: "production", override: "staging", invalid: "" });
add("frontend.env.<error-tracker label>", { rendered: "frontend.env.REACT_APP_ERRORTRACKER_ENV", param: "frontend.env.REACT_APP_ERRORTRACKER_ENV", default: "production", override: "pilot", invalid: "", note: "the reference hides the key's name" });
add("frontend.env.REACT_APP_CLIENT_ID", { na: placeholder, override: "web-2", required: true, note: "supplied by the vendor: the package's PLACEHOLDER_VALUE is refused" });
add("frontend.env.REACT_APP_CLIENT_SECRET", { na: placeholder, secret: true, override: S("cs"), required: true });
add("frontend.env.REACT_APP_CAPTCHA_SITE_KEY", { na: placeholder, secret: true, override: S("cap"), required: true });
add("frontend.env.<icon-font registry token>", { na: placeholder, rendered: "frontend.env.ICON_FONT_REGISTRY_TOKEN", param: "frontend.env.ICON_FONT_REGISTRY_TOKEN", secret: true, override: S("icons"), required: true, note: "the reference hides the key's name" });
add("frontend.env.REACT_APP_BROADCASTER_WS_URL", { na: placeholder, override: "wss://ws.example.org/b", invalid: "https://ws.example.org/b", note: "derived as wss://<ingress.domainName>/broadcast instead of the package placeholder" });
add("frontend.env.REACT_APP_PLAYWRIGHT_TRACING_VIEWER_URL", { default: CHART, override: "https://trace.example.org", invalid: "trace" });
add("frontend.env.REACT_APP_SECURED_SIGN_UP", { default: "false", override: "false", invalid: "yes", fixed: true, note: "follows automation.env.SECURED_SIGN_UP (one switch)" });
add("swef.env.CODEGEN_TOKEN", { secret: true, default: "token", override: S("codegen"), invalid: "", note: "the package's own default value" });
add("swef.env.VITE_ENABLE_SIMPLE_AUTH", { default: "false", override: "true", invalid: "yes" });
add("automation.env.TZ", { default: "Asia/Tokyo", override: "UTC", invalid: "" });
add("automation.env.NODE_ENV", { default: "production", override: "staging", invalid: "" });
add("automation.env.RAILS_ENV", { default: "production", override: "staging", invalid: "" });
add("automation.env.PUBLIC_LLM_INTERNAL_SECRET", { secret: true, default: GENERATED("S-llm-internal"), override: S("internal"), invalid: "" });
add("automation.env.ENABLE_SELF_HOSTING", { default: "true", override: "false", invalid: "yes" });
add("automation.env.SECURED_SIGN_UP", { default: "false", override: "true", invalid: "yes" });
add("automation.env.OTEL_ENABLED", { default: "true", override: "false", invalid: "yes" });
add("automation.env.ENABLE_PROXY_FROM_X_HEADER", { default: "false", override: "true", invalid: "yes" });
add("automation.services.identifier.name", { default: "identifier", override: "ident", invalid: "" });
add("automation.services.identifier.replicaCount", { default: 1, override: 2, invalid: 0 });
add("ultron.env.ENV", { default: "production", override: "staging", invalid: "prod" });
add("ultron.env.APP_PUBLIC_PORT", { default: 3001, override: 3101, invalid: 0 });
add("ultron.env.APP_PORT", { default: 3000, override: 3100, invalid: 0 });
add("ultron.env.STORAGE_DISK", { default: "s3", override: "s3", fixed: "minio", invalid: "gcs", note: "follows storage.provider" });
add("ultron.env.VECTOR_SERVICE", { na: fixedValue, default: "pgvector", fixed: "qdrant" });
for (const k of ["ENABLE_UI_SEPARATOR_TOOL", "ENABLE_DEVELOPER_AGENT_FOR_LARGE_FILE", "ENABLE_LEGACY_AGENT", "OTEL_ENABLED"]) add(`ultron.env.${k}`, { default: "true", override: "false", invalid: "yes" });
add("ultron.env.DELEGATE_MODE", { default: "", override: "remote", invalid: 3 });
add("ultron.secret.PUBLIC_LLM_INTERNAL_SECRET", { secret: true, default: GENERATED("S-llm-internal"), override: S("internal"), invalid: "", note: "one value with automation.env's: either side may be set" });
add("ultron.secret.CLI_ZIPPER_PRIVATE_KEY", { secret: true, default: GENERATED("S-ultron-key"), override: S("rsa"), invalid: "not a key" });
add("document_converter.env.ENVIRONMENT", { default: "production", override: "staging", invalid: "" });
add("document_converter.env.LOCAL_SERVER", { default: CHART, override: "http://127.0.0.1:8001", invalid: "localhost" });
add("document_converter.env.USE_CLOUDA", { default: "true", override: "true", fixed: "false", base: "prod-azure", note: "follows storage.provider (true for clouda storage)" });
add("document_converter.env.USE_BASE_64", { default: "true", override: "false", invalid: "yes" });
add("localllm.env.PORT", { default: "8000", override: "8001", invalid: "" });
add("localllm.env.DO_NOT_TRACK", { default: "1", override: "0", invalid: "" });
for (const k of ["SERVICE_BOOST_MODEL_FILTER", "SERVICE_BOOST_PROLOGUE_MODULES", "SERVICE_BOOST_DEFAULT_WORKFLOW", "SERVICE_BOOST_EPILOGUE_MODULES"]) {
  add(`boost.env.${k}`, { default: CHART, override: "custom", invalid: "", note: "the reference hides the default" });
}
add("boost.env.SERVICE_BOOST_SEARCH_URL", { default: "https://search.platform.example.com", override: "https://find.example.org", invalid: "find.example.org" });
add("boost.env.SERVICE_BOOST_CONTEXT_SYSTEM_SERVICE_URL", { default: CHART, override: "http://context.platform.svc:8080", invalid: "context" });
add("boost.env.SERVICE_BOOST_ERRORTRACKER_ENVIRONMENT", { default: "pilot", override: "production", invalid: "" });
add("boost.env.OTEL_ENABLED", { default: "true", override: "false", invalid: "yes" });

// Data services
for (const svc of ["sqldb", "cache", "docdb", "mq", "graphql", "gateway"]) {
  add(`${svc}.enabled`, { na: ["sqldb", "cache", "docdb", "mq"].includes(svc) ? { override: NA.follows } : undefined, default: true, invalid: "yes", fixed: ["sqldb", "cache", "docdb", "mq"].includes(svc) ? false : undefined, override: ["graphql", "gateway"].includes(svc) ? false : undefined, note: "a data service in the cluster cannot be switched off: data.<service> says where it runs" });
}
add("sqldb.global.sqldb.auth.postgresPassword", { secret: true, default: GENERATED("S-sqldb-super"), override: S("super"), invalid: "" });
add("sqldb.global.sqldb.auth.username", { default: "platform", override: "app", invalid: "", note: "the package placeholder replaced by a fixed name" });
add("sqldb.global.sqldb.auth.password", { secret: true, default: GENERATED("S-sqldb"), override: S("pw"), invalid: "" });
add("sqldb.global.sqldb.auth.database", { default: "platform", override: "app", invalid: "" });
add("cache.architecture", { default: "standalone", override: "replication", invalid: "cluster" });
add("cache.persistence.size", { default: "2Gi", override: "4Gi", invalid: "" });
add("cache.auth.enabled", { default: false, override: true, invalid: "yes" });
add("cache.auth.sentinel", { default: false, invalid: "yes", fixed: true, override: true, feature: (r) => (r.cache = { architecture: "replication" }), note: "needs cache.architecture replication" });
add("cache.auth.password", { secret: true, default: "", override: S("cache"), note: "used only with cache.auth.enabled" });
add("cache.master.service.ports.cache", { default: "6379", override: "6380", invalid: "70000" });
add("docdb.architecture", { default: "standalone", override: "replicaset", invalid: "sharded" });
add("docdb.global.storageClass", { default: "default", override: "fast", invalid: 3 });
add("docdb.persistence.storageClass", { default: "default", override: "fast", invalid: 3 });
add("docdb.persistence.size", { default: "5Gi", override: "10Gi", invalid: "" });
add("docdb.useStatefulSet", { default: true, override: false, invalid: "yes" });
add("docdb.auth.enabled", { default: true, override: false, invalid: "yes" });
add("docdb.auth.databases", { default: ["platform"], override: ["app"], invalid: "app" });
add("docdb.auth.usernames", { default: ["platform"], override: ["app"], invalid: ["a", "b"] });
add("docdb.auth.passwords", { secret: true, default: GENERATED(["S-docdb"]), override: [S("p")], invalid: [S("a"), S("b")] });
add("mq.auth.tls.enabled", { default: false, override: true, invalid: "yes" });
add("mq.auth.username", { default: "admin", override: "platform", invalid: "" });
add("mq.auth.password", { secret: true, default: GENERATED("S-mq"), override: S("mq"), invalid: "" });
add("mq.auth.erlangCookie", { secret: true, default: GENERATED("S-erlang"), override: S("cookie"), invalid: "" });
add("mq.persistence.size", { default: "2Gi", override: "4Gi", invalid: "" });
add("graphql.env.ENABLE_CONSOLE", { default: "false", override: "true", invalid: "yes" });
add("graphql.env.DEV_MODE", { default: "false", override: "true", invalid: "yes" });
add("graphql.env.ENABLED_LOG_TYPES", { default: "startup, http-log, webhook-log, websocket-log, query-log", override: "startup", invalid: "" });
add("gateway.env.prefix", { default: CHART, override: "/gw/", invalid: "", note: "a prefix path the reference hides" });
add("gateway.env.database", { default: "off", override: "postgres", invalid: "" });
add("gateway.env.plugins", { default: "bundled,jwt,acme", override: "bundled,jwt", invalid: "" });
add("gateway.env.real_ip_header", { default: "x-real-ip", override: "x-forwarded-for", invalid: "" });
add("gateway.env.trusted_ips", { default: "0.0.0.0/0,::/0", override: "10.0.0.0/8", invalid: "" });
add("gateway.ingressController.ingressClass", { default: "gateway", override: "kong", invalid: "" });
add("gateway.postgresql.enabled", { default: false, override: true, invalid: "yes" });
add("gateway.effectiveSemver", { na: placeholder, override: "3.8", invalid: "", note: "Required with an empty package default: set to the gateway image's version" });
add("gateway.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });
add("gateway.proxy.loadBalancerSourceRanges", { default: [], override: ["203.0.113.0/24"], invalid: ["everyone"] });
add("vectordb.postgresql.username", { default: "vector", override: "vec", invalid: "" });
add("vectordb.postgresql.password", { secret: true, default: GENERATED("S-vectordb"), override: S("vec"), invalid: "" });
add("vectordb.postgresql.database", { default: "vector", override: "vec", invalid: "" });
add("vectordb.postgresql.port", { default: 5432, override: 5433, invalid: 0 });
add("vectordb.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("vectordb.persistence.size", { default: "64Gi", override: "128Gi", invalid: "" });
add("vectordb.persistence.storageClassName", { default: "", override: "fast", invalid: 3 });
add("vectordb.image.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });

// External services (onprem runs every data service outside the cluster)
const ext = { base: "onprem", na: placeholder } as const;
add("externalSqldb.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.sqldb" });
for (const k of ["username", "host", "dbName"]) add(`externalSqldb.${k}`, { ...ext, override: k === "host" ? "pg2.corp.example" : "other", required: true, invalid: k === "host" ? "postgres://pg:5432" : undefined });
add("externalSqldb.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalSqldb.port", { default: "5432", override: "6432", invalid: "0" });
add("externalSqldb.maxOpenConns", { default: "20", override: "40", invalid: "-1" });
add("externalSqldb.maxIdleConns", { default: "5", override: "10", invalid: "-1" });
add("externalCache.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.cache" });
add("externalCache.host", { ...ext, override: "redis2.corp.example", invalid: "redis://r:6379", required: true });
add("externalCache.username", { ...ext, override: "app", required: true });
add("externalCache.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalCache.port", { default: 6379, override: 6380, invalid: 0 });
add("externalCache.useTls", { default: true, override: false, invalid: "yes" });
add("externalDocdb.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.docdb" });
add("externalDocdb.mongodb_uri", { ...ext, secret: true, override: S("uri"), required: true, invalid: "mongodb://a:1,b:2/db", note: "format checked where readable (plaintext here)" });
add("externalVectordb.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.vectordb" });
for (const k of ["host", "username", "database"]) add(`externalVectordb.${k}`, { ...ext, override: k === "host" ? "vec2.corp.example" : "other", required: true, invalid: k === "host" ? "vec:5432" : undefined });
add("externalVectordb.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalVectordb.port", { default: "5432", override: "6432", invalid: "x" });
add("externalVectordb.sslMode", { na: fixedValue, default: "disable", fixed: "require" });
add("externalMq.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.mq" });
add("externalMq.host", { ...ext, override: "mq2.corp.example", invalid: "amqps://mq:5671", required: true });
add("externalMq.port", { default: "5672", override: "5671", invalid: "x" });
add("externalMq.username", { ...ext, override: "app", required: true });
add("externalMq.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalMq.useTls", { default: true, override: false, invalid: "yes" });

// Monitoring
const persistence = (p: string, size: string, extra: Record<string, [unknown, unknown, unknown]> = {}) => {
  add(`${p}.persistence.enabled`, { default: true, override: false, invalid: "yes" });
  add(`${p}.persistence.size`, { default: size, override: "99Gi", invalid: "" });
  for (const [leaf, [d, o, i]] of Object.entries(extra)) add(`${p}.persistence.${leaf}`, { default: d, override: o, invalid: i });
  add(`${p}.persistence.storageClass`, { default: "", override: "fast", invalid: 3 });
};
add("monitoring.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.useTls", { default: true, override: false, invalid: "yes" });
add("monitoring.metrics.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.metrics.persistence.size", { default: "50Gi", override: "99Gi", invalid: "" });
add("monitoring.metrics.persistence.accessMode", { default: "ReadWriteOnce", override: "ReadWriteMany", invalid: "Shared" });
add("monitoring.metrics.persistence.storageClass", { default: "", override: "fast", invalid: 3 });
add("monitoring.metrics.additionalScrapeConfigs", { default: [], override: [{ job_name: "x" }], invalid: "x", appended: [apiScrapeConfig("agentport")], note: "the API pods' scrape job follows the stack's own" });
add("monitoring.metrics.externalLabels", { default: {}, override: { cluster: "a" }, invalid: "x" });
add("monitoring.metrics.remoteWrite.enabled", { default: false, override: true, invalid: "yes" });
add("monitoring.metrics.remoteWrite.configs", { default: CHART, override: [{ url: "https://metrics.example.org/write" }], invalid: "x", note: "the package's values file supplies the default" });
add("monitoring.dashboards.adminUser", { default: "admin", override: "root", invalid: "" });
add("monitoring.dashboards.adminPassword", { secret: true, default: GENERATED("S-dashboards"), override: S("dash"), invalid: "" });
add("monitoring.dashboards.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.dashboards.persistence.size", { default: "5Gi", override: "9Gi", invalid: "" });
add("monitoring.dashboards.persistence.storageClass", { default: "", override: "fast", invalid: 3 });
add("monitoring.dashboards.persistence.accessModes", { default: ["ReadWriteOnce"], override: ["ReadWriteMany"], invalid: ["Shared"] });
add("monitoring.dashboards.resources.limits", { default: {}, override: { memory: "1Gi" }, invalid: { memory: "lots" } });
add("monitoring.dashboards.env", { default: {}, override: { GF_LOG_LEVEL: "warn" }, invalid: "x" });
add("monitoring.logs.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.logs.storage.type", { default: "filesystem", override: "s3", invalid: "tape", on: (r) => (r.monitoring = { logs: { storage: { s3: { bucketName: "logs", region: "ap-northeast-1" } } } }) });
persistence("monitoring.logs", "10Gi");
const logsS3: Edit = (r) => (r.monitoring = { logs: { storage: { type: "s3", s3: { bucketName: "logs", region: "ap-northeast-1" } } } });
for (const k of ["bucketName", "region"]) add(`monitoring.logs.storage.s3.${k}`, { default: "", override: "x", required: true, feature: logsS3 });
add("monitoring.logs.storage.s3.accessKeyId", { secret: true, default: "", override: S("a") });
add("monitoring.logs.storage.s3.secretAccessKey", { secret: true, default: "", override: S("b") });
add("monitoring.logs.storage.s3.endpoint", { default: "", override: "https://s3.example.org", invalid: 3 });
add("monitoring.logs.storage.s3.s3ForcePathStyle", { default: false, override: true, invalid: "yes" });
add("monitoring.logs.storage.s3.insecure", { default: false, override: true, invalid: "yes" });
const logsAzure: Edit = (r) => (r.monitoring = { logs: { storage: { type: "azure", clouda: { accountName: "logs", containerName: "logs", accountKey: S("k") } } } });
for (const k of ["accountName", "containerName"]) add(`monitoring.logs.storage.clouda.${k}`, { default: "", override: "x", required: true, feature: logsAzure });
add("monitoring.logs.storage.clouda.accountKey", { secret: true, default: "", override: S("k"), required: true, feature: logsAzure });
add("monitoring.logs.storage.clouda.endpointSuffix", { default: "", override: "core.windows.net", invalid: 3 });
add("monitoring.logs.storage.clouda.useManagedIdentity", { default: false, override: true, invalid: "yes" });
add("monitoring.logagent.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.opentelemetry.samplerRatio", { default: "1.0", override: "0.5", invalid: 1.5 });
add("monitoring.traces.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.traces.logLevel", { default: "info", override: "debug", invalid: "verbose" });
add("monitoring.traces.storage.type", { default: "local", override: "s3", invalid: "tape" });
persistence("monitoring.traces", "10Gi");
for (const e of ["nodeExporter", "kubeStateMetrics"]) add(`monitoring.${e}.enabled`, { default: true, override: false, invalid: "yes" });
for (const e of ["nodeExporter", "kubeStateMetrics"]) {
  add(`monitoring.${e}.external.namespace`, { default: "kube-system", override: "monitoring", invalid: "" });
  add(`monitoring.${e}.external.serviceName`, { default: CHART, override: "exporter", invalid: "", note: "a stack service name the reference hides" });
}

// Limits
for (const t of ["connect-timeout", "read-timeout", "write-timeout"]) add(`ingress.annotations.${t}`, { default: "180000", override: "240000", invalid: "soon" });
add("automation.env.RAILS_MAX_THREADS", { default: "15", override: "20", invalid: "0" });
add("automation.env.DYNAMIC_DOCUMENT_GENERATION_LIMITATION", { default: "", override: "100", invalid: "lots" });
add("ultron.terminationGracePeriodSeconds", { default: 1800, override: 3600, invalid: 0 });
add("ultron.env.MAXIMUM_CODE_DOCUMENT_LENGTH", { default: 2500, override: 5000, invalid: 0 });
add("ultron.env.GENERIC_ERD_DOCUMENT_LIMIT", { default: 7, override: 9, invalid: 0 });
add("ultron.env.GENERIC_ERD_DOCUMENT_PER_RUN", { default: 7, override: 9, invalid: 0 });
add("smtp.config.messageSizeLimit", { default: "52428800", override: "10m", invalid: "big" });
add("mq.extraConfiguration", { default: "consumer_timeout = 31622400000", override: "consumer_timeout = 3600000", invalid: "" });
add("gateway.env.client_body_buffer_size", { default: "5120k", override: "64k", invalid: "big" });
add("monitoring.metrics.retention", { default: "15d", override: "30d", invalid: "long" });
add("monitoring.metrics.scrapeInterval", { default: "15s", override: "30s", invalid: "often" });
add("monitoring.metrics.evaluationInterval", { default: "15s", override: "30s", invalid: "often" });
add("monitoring.traces.retention", { default: "24h", override: "48h", invalid: "long" });
add("monitoring.traces.ingester.maxBlockDuration", { default: "30m", override: "1h", invalid: "long" });
add("monitoring.traces.search.maxDuration", { default: "24h", override: "12h", invalid: "long" });
add("monitoring.traces.memBallastSizeMbs", { default: 1024, override: 2048, invalid: 0 });
add("monitoring.traces.limits.maxTracesPerUser", { default: 10000, override: 20000, invalid: 0 });
add("monitoring.traces.limits.maxBytesPerTrace", { default: 5000000, override: 6000000, invalid: 0 });
add("monitoring.traces.limits.ingestionRateLimitBytes", { default: 15000000, override: 16000000, invalid: 0 });
add("monitoring.traces.limits.ingestionBurstSizeBytes", { default: 20000000, override: 21000000, invalid: 0 });

// Versioning: tags follow the chart version, never a stack
const TAGS: Record<string, string> = {
  frontend: "v26.02.03", frontend_core: "v26.02.16.2", swef: "v26.02.03-s", automation: "v26.02.16.2", ultron: "v26.02.16.2-u",
  document_converter: "v25.09.17", graphql: "v26.02.16.2", browser: "latest", localllm: "v0.7.0", llmproxy: "v1.81.3-stable",
  boost: "v26.02.16.4", html_conversion: "v26.02.23.1", objstore: "RELEASE.2024-12-18T13-15-44Z", mail: "4.4.0", smtp: "v3.7.0",
  sqldb: "14.15.0", cache: "6.2.16-debian-12-r3", docdb: "5.0.24-debian-11-r20", mq: "3.8.35-debian-11-r5", gateway: "3.7",
  vectordb: "pg16", metrics: "v3.1.0", dashboards: "11.6.5", logs: "3.3.1", logagent: "3.3.1", opentelemetry: "0.117.0",
  kubeStateMetrics: "v2.14.0", nodeExporter: "v1.8.2", blackboxExporter: "v0.25.0", traces: "2.7.0",
};
for (const [component, tag] of Object.entries(TAGS)) add(`image.${component}.tag`, { na: fixedValue, default: tag, fixed: "v0.0.1" });

// Named in prose
add("sqldb.persistence.storageClassName", { default: "", override: "fast", invalid: 3 });
add("credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_<n>_<MODEL>", { na: placeholder,
  param: "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_<MODEL>",
  rendered: "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_4O",
  secret: true,
  override: S("instance"),
  setAt: "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_2_O3",
  required: true,
  base: "prod-azure",
  unset: (r) => (r.credentials.boost = {}),
  note: "one key per instance and model; the value's form is checked where readable",
});
add("storage.provider", { default: "S3", override: "Minio", invalid: "GCS" });
add("objstore.mode", { default: "distributed", override: "standalone", invalid: "replicated", on: minio });
add("objstore.persistence.enabled", { default: true, override: false, invalid: "yes", on: minio });
add("objstore.persistence.size", { default: "10Gi", override: "20Gi", invalid: "", on: minio });
add("objstore.persistence.accessMode", { default: "ReadWriteOnce", override: "ReadWriteMany", invalid: "Shared", on: minio });
add("objstore.persistence.storageClass", { default: "", override: "fast", invalid: 3, on: minio });
add("image.<component>.repository", { na: fixedValue, param: "image.frontend.repository", rendered: "image.frontend.repository", default: CHART, fixed: "registry.example.org/frontend", note: "repositories are the package's, left to the chart" });

export const SPEC_PATHS: readonly SpecRow[] = rows;
