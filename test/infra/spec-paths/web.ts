/** The conformance table: ingress, storage providers, company and mail, and the components' environment values. */
import { CHART, GENERATED, NA, fixedValue, placeholder, S, minio, type Edit, section } from "./row.js";

const { rows, add } = section();

// Ingress
add("ingress.enabled", { default: true, override: false, invalid: "yes" });
add("ingress.domainName", { na: placeholder, override: "agents.example.org", required: true });
add("ingress.chatDomainName", { na: placeholder, override: "chat.example.org", required: true });
add("ingress.className", { default: "gateway", override: "nginx", invalid: "" });
add("ingress.tls", {
  default: [],
  override: [{ secretName: "tls", hosts: ["platform.example.com"] }],
  invalid: "yes",
  feature: (r) => (r.api.tls = [{ secretName: "api-tls" }]),
});
add("ingress.objstore.enabled", {
  default: false,
  invalid: "yes",
  override: true,
  on: (r) => (minio(r), (r.ingress.objstore = { domainName: "s3.example.com" })),
});
add("ingress.objstore.console.enabled", {
  default: false,
  invalid: "yes",
  override: true,
  on: (r) => (minio(r), (r.ingress.objstore = { console: { domainName: "console.example.com" } })),
});
add("ingress.objstore.domainName", {
  na: placeholder,
  override: "s3.example.org",
  required: true,
  on: (r) => (minio(r), (r.ingress.objstore = { enabled: true, domainName: "s3.example.com" })),
});
add("ingress.objstore.console.domainName", {
  na: placeholder,
  override: "console.example.org",
  required: true,
  on: (r) => (minio(r), (r.ingress.objstore = { console: { enabled: true, domainName: "console.example.com" } })),
});
add("ingress.objstore.annotations", { default: {}, override: { a: "b" }, invalid: "x" });
add("ingress.objstore.console.annotations", { default: {}, override: { a: "b" }, invalid: "x" });
add("ingress.objstore.tls", { default: [], override: [{ secretName: "s3" }], invalid: "x" });
add("ingress.objstore.console.tls", { default: [], override: [{ secretName: "console" }], invalid: "x" });
for (const sub of ["dashboards", "metrics"]) {
  add(`ingress.${sub}.enabled`, { default: true, override: false, invalid: "yes" });
  add(`ingress.${sub}.type`, { default: "subdomain", override: "path", invalid: "host" });
  add(`ingress.${sub}.domain`, {
    default: `${sub}.platform.example.com`,
    override: `${sub}.example.org`,
    invalid: `https://${sub}.example.org`,
    note: "<your-domain> is ingress.domainName",
  });
  add(`ingress.${sub}.pathPrefix`, { default: `/${sub}`, override: `/x-${sub}`, invalid: "" });
}
add("ingress.annotations.strip-path", { default: "true", override: "false", invalid: "sometimes" });

// Storage providers (rendered by the storage components: the plan tests assert storage.secret)
const note = "rendered by the storage component (stored plans)";
add("storage.secret.objstore.ACCESS_KEY_ID", {
  secret: true,
  default: GENERATED("objstore-access-key", 20, { suggested: 20 }),
  override: S("ak"),
  invalid: "",
  on: minio,
  note,
});
add("storage.secret.objstore.SECRET_ACCESS_KEY", {
  secret: true,
  default: GENERATED("objstore-secret-key", 40, { suggested: 40 }),
  override: S("sk"),
  invalid: "",
  on: minio,
  note,
});
add("storage.secret.objstore.REGION", { na: fixedValue, default: "us-east-1", fixed: "eu-west-1", on: minio, note });
for (const k of ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"])
  add(`storage.secret.objstore.${k}`, {
    na: { default: NA.none },
    override: `my-${k.toLowerCase().replaceAll("_", "-")}`,
    invalid: "",
    on: minio,
    note,
  });
add("storage.secret.objstore.FORCE_PATH_STYLE", { na: fixedValue, default: "true", fixed: "false", on: minio, note });
add("storage.secret.cloudb.ACCESS_KEY_ID", {
  na: { default: NA.none },
  secret: true,
  override: S("ak"),
  invalid: "",
  on: (r) => (r.storage.secret.cloudb.SECRET_ACCESS_KEY = S("sk0")),
  note: `${note}; taken from the IAM key created for the buckets unless both keys are set`,
});
add("storage.secret.cloudb.SECRET_ACCESS_KEY", {
  na: { default: NA.none },
  secret: true,
  override: S("sk"),
  invalid: "",
  on: (r) => (r.storage.secret.cloudb.ACCESS_KEY_ID = S("ak0")),
  note,
});
add("storage.secret.cloudb.REGION", { na: fixedValue, default: "ap-northeast-1", fixed: "us-east-1", note });
for (const k of ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"])
  add(`storage.secret.cloudb.${k}`, {
    na: { default: NA.none },
    override: `other-${k.toLowerCase().replaceAll("_", "-")}`,
    invalid: "Bad_Bucket",
    required: true,
    note,
  });
add("storage.secret.clouda.STORAGE_ACCOUNT_NAME", {
  na: { default: NA.none },
  override: "otheraccount",
  invalid: "Not-Valid",
  required: true,
  base: "prod-azure",
  note,
});
add("storage.secret.clouda.STORAGE_ACCESS_KEY", {
  na: { default: NA.none },
  secret: true,
  override: S("key"),
  base: "prod-azure",
  note: `${note}; read from the created account unless set`,
});
for (const k of ["CONTAINER", "ULTRON_CONTAINER", "EXPORT_PROJECT_CONTAINER", "PUBLIC_CONTAINER"])
  add(`storage.secret.clouda.${k}`, {
    na: { default: NA.none },
    override: `other-${k.toLowerCase()}`,
    required: true,
    base: "prod-azure",
    note,
  });

// Company and mail
for (const k of ["domain", "name", "brand_name"])
  add(`company.${k}`, { na: placeholder, override: `new-${k}`, required: true });
add("company.language", { default: "ja", override: "en", invalid: "fr" });
add("company.pages.terms_of_service_url", {
  na: placeholder,
  override: "https://example.org/terms",
  invalid: "example.org/terms",
  required: true,
});
add("company.pages.privacy_policy_url", {
  na: placeholder,
  override: "https://example.org/privacy",
  invalid: "https://<your-domain>/privacy",
  required: true,
});
add("mailer.smtp_settings.address", { na: placeholder, override: "mail.example.org", required: true });
add("mailer.smtp_settings.user_name", { na: placeholder, override: "relay", required: true });
add("mailer.smtp_settings.password", { na: placeholder, secret: true, override: S("pw"), required: true });
add("mailer.default_from_email", { na: placeholder, override: "hello@example.org", invalid: "hello", required: true });
const smtpOn: Edit = (r) =>
  (r.smtp = { enabled: true, config: { hostname: "smtp.example.com" }, auth: { users: [{ username: "mailer" }] } });
add("smtp.enabled", {
  default: false,
  override: true,
  invalid: "yes",
  on: (r) => (r.smtp = { config: { hostname: "smtp.example.com" } }),
});
add("smtp.config.hostname", { na: placeholder, override: "mx.example.org", required: true, on: smtpOn });
add("smtp.config.allowedNetworks", {
  default: "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16",
  override: "10.1.0.0/16",
  invalid: "everyone",
});
add("smtp.auth.enabled", { default: false, override: true, invalid: "yes" });
add("smtp.auth.users[0].username", {
  default: CHART,
  override: "relay2",
  invalid: "",
  required: true,
  feature: (r) => (r.smtp = { auth: { enabled: true, users: [{ username: "relay" }] } }),
  note: "a fixed user name the reference hides: the package's unless a stack names it, which smtp.auth needs",
});
add("smtp.auth.users[0].password", { secret: true, default: GENERATED("smtp", 32), override: S("smtp"), on: smtpOn });
add("smtp.service.type", { default: "ClusterIP", override: "NodePort", invalid: "Ingress" });
add("smtp.service.port", { default: 25, override: 2525, invalid: 70000 });
add("smtp.service.targetPort", { default: 587, override: 2587, invalid: 0 });
add("smtp.image.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });
add("mail.enabled", { default: false, override: true, invalid: "yes" });
add("mail.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("mail.persistence.size", { default: "1Gi", override: "2Gi", invalid: "" });
add("mail.persistence.accessModes", {
  default: ["ReadWriteOnce"],
  override: ["ReadWriteMany"],
  invalid: "ReadWriteOnce",
});
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
add("frontend.env.<error-tracker label>", {
  rendered: "frontend.env.REACT_APP_ERRORTRACKER_ENV",
  param: "frontend.env.REACT_APP_ERRORTRACKER_ENV",
  default: "production",
  override: "pilot",
  invalid: "",
  note: "the reference hides the key's name",
});
add("frontend.env.REACT_APP_CLIENT_ID", {
  na: placeholder,
  override: "web-2",
  required: true,
  note: "supplied by the vendor: the package's PLACEHOLDER_VALUE is refused",
});
add("frontend.env.REACT_APP_CLIENT_SECRET", { na: placeholder, secret: true, override: S("cs"), required: true });
add("frontend.env.REACT_APP_CAPTCHA_SITE_KEY", { na: placeholder, secret: true, override: S("cap"), required: true });
add("frontend.env.<icon-font registry token>", {
  na: placeholder,
  rendered: "frontend.env.ICON_FONT_REGISTRY_TOKEN",
  param: "frontend.env.ICON_FONT_REGISTRY_TOKEN",
  secret: true,
  override: S("icons2"),
  required: true,
  note: "the reference hides the key's name",
});
add("frontend.env.REACT_APP_BROADCASTER_WS_URL", {
  na: placeholder,
  override: "wss://ws.example.org/b",
  invalid: "https://ws.example.org/b",
  note: "derived as wss://<ingress.domainName>/broadcast instead of the package placeholder",
});
add("frontend.env.REACT_APP_PLAYWRIGHT_TRACING_VIEWER_URL", {
  default: CHART,
  override: "https://trace.example.org",
  invalid: "trace",
});
add("frontend.env.REACT_APP_SECURED_SIGN_UP", {
  default: "false",
  na: { override: NA.follows },
  invalid: "yes",
  fixed: true,
  note: "follows automation.env.SECURED_SIGN_UP (one switch)",
});
add("swef.env.CODEGEN_TOKEN", {
  secret: true,
  default: "token",
  override: S("codegen"),
  invalid: "",
  note: "the package's own default value",
});
add("swef.env.VITE_ENABLE_SIMPLE_AUTH", { default: "false", override: "true", invalid: "yes" });
add("automation.env.TZ", { default: "Asia/Tokyo", override: "UTC", invalid: "" });
add("automation.env.NODE_ENV", { default: "production", override: "staging", invalid: "" });
add("automation.env.RAILS_ENV", { default: "production", override: "staging", invalid: "" });
add("automation.env.PUBLIC_LLM_INTERNAL_SECRET", {
  secret: true,
  default: GENERATED("llm-internal", 32),
  override: S("internal"),
  invalid: "",
});
add("automation.env.ENABLE_SELF_HOSTING", { default: "true", override: "false", invalid: "yes" });
add("automation.env.SECURED_SIGN_UP", { default: "false", override: "true", invalid: "yes" });
add("automation.env.OTEL_ENABLED", { default: "true", override: "false", invalid: "yes" });
add("automation.env.ENABLE_PROXY_FROM_X_HEADER", { default: "false", override: "true", invalid: "yes" });
add("automation.services.identifier.name", { default: "identifier", override: "ident", invalid: "" });
add("automation.services.identifier.replicaCount", { default: 1, override: 2, invalid: 0 });
add("ultron.env.ENV", { default: "production", override: "staging", invalid: "prod" });
add("ultron.env.APP_PUBLIC_PORT", { default: 3001, override: 3101, invalid: 0 });
add("ultron.env.APP_PORT", { default: 3000, override: 3100, invalid: 0 });
add("ultron.env.STORAGE_DISK", {
  default: "s3",
  na: { override: NA.follows },
  fixed: "minio",
  invalid: "gcs",
  note: "follows storage.provider",
});
add("ultron.env.VECTOR_SERVICE", { na: fixedValue, default: "pgvector", fixed: "qdrant" });
for (const k of [
  "ENABLE_UI_SEPARATOR_TOOL",
  "ENABLE_DEVELOPER_AGENT_FOR_LARGE_FILE",
  "ENABLE_LEGACY_AGENT",
  "OTEL_ENABLED",
])
  add(`ultron.env.${k}`, { default: "true", override: "false", invalid: "yes" });
add("ultron.env.DELEGATE_MODE", { default: "", override: "remote", invalid: 3 });
add("ultron.secret.PUBLIC_LLM_INTERNAL_SECRET", {
  secret: true,
  default: GENERATED("llm-internal", 32),
  override: S("internal"),
  invalid: "",
  note: "one value with automation.env's: either side may be set",
});
add("ultron.secret.CLI_ZIPPER_PRIVATE_KEY", {
  secret: true,
  default: GENERATED("ultron-zipper", "rsa"),
  override: S("rsa"),
  invalid: "not a key",
});
add("document_converter.env.ENVIRONMENT", { default: "production", override: "staging", invalid: "" });
add("document_converter.env.LOCAL_SERVER", { default: CHART, override: "http://127.0.0.1:8001", invalid: "localhost" });
add("document_converter.env.USE_CLOUDA", {
  deviation: {
    renders: "false",
    why: 'follows storage.provider: "true" only with AzureStorage. With the default S3 storage the reference\'s `true` would send the converter to clouda storage the stack does not have; the must-override table lists this value with the storage settings for that reason',
  },
  na: { override: NA.follows },
  fixed: "true",
});
add("document_converter.env.USE_BASE_64", { default: "true", override: "false", invalid: "yes" });
add("localllm.env.PORT", { default: "8000", override: "8001", invalid: "" });
add("localllm.env.DO_NOT_TRACK", { default: "1", override: "0", invalid: "" });
for (const k of [
  "SERVICE_BOOST_MODEL_FILTER",
  "SERVICE_BOOST_PROLOGUE_MODULES",
  "SERVICE_BOOST_DEFAULT_WORKFLOW",
  "SERVICE_BOOST_EPILOGUE_MODULES",
]) {
  add(`boost.env.${k}`, { default: CHART, override: "custom", invalid: "", note: "the reference hides the default" });
}
add("boost.env.SERVICE_BOOST_SEARCH_URL", {
  default: "https://search.platform.example.com",
  override: "https://find.example.org",
  invalid: "find.example.org",
});
add("boost.env.SERVICE_BOOST_CONTEXT_SYSTEM_SERVICE_URL", {
  default: CHART,
  override: "http://context.platform.svc:8080",
  invalid: "context",
});
add("boost.env.SERVICE_BOOST_ERRORTRACKER_ENVIRONMENT", { default: "pilot", override: "production", invalid: "" });
add("boost.env.OTEL_ENABLED", { default: "true", override: "false", invalid: "yes" });

export const WEB_ROWS = rows;
