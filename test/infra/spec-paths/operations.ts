/** The conformance table: monitoring, limits, image tags by chart version, and the paths the reference names in prose. */
import { apiScrapeConfig } from "../../../infra/api/scrape.js";
import { CHART, GENERATED, fixedValue, placeholder, S, minio, type Edit, section } from "./row.js";

const { rows, add } = section();

// Monitoring
const persistence = (p: string, size: string, extra: Record<string, [unknown, unknown, unknown]> = {}) => {
  add(`${p}.persistence.enabled`, { default: true, override: false, invalid: "yes" });
  add(`${p}.persistence.size`, { default: size, override: "99Gi", invalid: "" });
  for (const [leaf, [d, o, i]] of Object.entries(extra))
    add(`${p}.persistence.${leaf}`, { default: d, override: o, invalid: i });
  add(`${p}.persistence.storageClass`, { default: "", override: "fast", invalid: 3 });
};
add("monitoring.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.useTls", { default: true, override: false, invalid: "yes" });
add("monitoring.metrics.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.metrics.persistence.size", { default: "50Gi", override: "99Gi", invalid: "" });
add("monitoring.metrics.persistence.accessMode", {
  default: "ReadWriteOnce",
  override: "ReadWriteMany",
  invalid: "Shared",
});
add("monitoring.metrics.persistence.storageClass", { default: "", override: "fast", invalid: 3 });
add("monitoring.metrics.additionalScrapeConfigs", {
  default: [],
  override: [{ job_name: "x" }],
  invalid: "x",
  appended: [apiScrapeConfig("agentport")],
  note: "the API pods' scrape job follows the stack's own",
});
add("monitoring.metrics.externalLabels", { default: {}, override: { cluster: "a" }, invalid: "x" });
add("monitoring.metrics.remoteWrite.enabled", { default: false, override: true, invalid: "yes" });
add("monitoring.metrics.remoteWrite.configs", {
  default: CHART,
  override: [{ url: "https://metrics.example.org/write" }],
  invalid: "x",
  note: "the package's values file supplies the default",
});
add("monitoring.dashboards.adminUser", { default: "admin", override: "root", invalid: "" });
add("monitoring.dashboards.adminPassword", {
  secret: true,
  default: GENERATED("dashboards-admin", 32),
  override: S("dash"),
  invalid: "",
});
add("monitoring.dashboards.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.dashboards.persistence.size", { default: "5Gi", override: "9Gi", invalid: "" });
add("monitoring.dashboards.persistence.storageClass", { default: "", override: "fast", invalid: 3 });
add("monitoring.dashboards.persistence.accessModes", {
  default: ["ReadWriteOnce"],
  override: ["ReadWriteMany"],
  invalid: ["Shared"],
});
add("monitoring.dashboards.resources.limits", {
  default: {},
  override: { memory: "1Gi" },
  invalid: { memory: "lots" },
});
add("monitoring.dashboards.env", { default: {}, override: { GF_LOG_LEVEL: "warn" }, invalid: "x" });
add("monitoring.logs.enabled", {
  default: true,
  override: false,
  invalid: "yes",
  on: (r) => (r.monitoring = { logagent: { enabled: false } }),
  note: "off only with the log agent off (the agent ships to it)",
});
add("monitoring.logs.storage.type", {
  default: "filesystem",
  override: "s3",
  invalid: "tape",
  on: (r) => (r.monitoring = { logs: { storage: { s3: { bucketName: "logs", region: "ap-northeast-1" } } } }),
});
persistence("monitoring.logs", "10Gi");
const logsS3: Edit = (r) =>
  (r.monitoring = { logs: { storage: { type: "s3", s3: { bucketName: "logs", region: "ap-northeast-1" } } } });
for (const k of ["bucketName", "region"])
  add(`monitoring.logs.storage.s3.${k}`, { default: "", override: "x", required: true, feature: logsS3 });
add("monitoring.logs.storage.s3.accessKeyId", { secret: true, default: "", override: S("a") });
add("monitoring.logs.storage.s3.secretAccessKey", { secret: true, default: "", override: S("b") });
add("monitoring.logs.storage.s3.endpoint", { default: "", override: "https://s3.example.org", invalid: 3 });
add("monitoring.logs.storage.s3.s3ForcePathStyle", { default: false, override: true, invalid: "yes" });
add("monitoring.logs.storage.s3.insecure", { default: false, override: true, invalid: "yes" });
const logsAzure: Edit = (r) =>
  (r.monitoring = {
    logs: { storage: { type: "azure", clouda: { accountName: "logs", containerName: "logs", accountKey: S("k") } } },
  });
for (const k of ["accountName", "containerName"])
  add(`monitoring.logs.storage.clouda.${k}`, { default: "", override: "x", required: true, feature: logsAzure });
add("monitoring.logs.storage.clouda.accountKey", {
  secret: true,
  default: "",
  override: S("k2"),
  required: true,
  feature: logsAzure,
});
add("monitoring.logs.storage.clouda.endpointSuffix", { default: "", override: "core.windows.net", invalid: 3 });
add("monitoring.logs.storage.clouda.useManagedIdentity", { default: false, override: true, invalid: "yes" });
add("monitoring.logagent.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.opentelemetry.samplerRatio", { default: "1.0", override: "0.5", invalid: 1.5 });
add("monitoring.traces.enabled", { default: true, override: false, invalid: "yes" });
add("monitoring.traces.logLevel", { default: "info", override: "debug", invalid: "verbose" });
add("monitoring.traces.storage.type", { default: "local", override: "s3", invalid: "tape" });
persistence("monitoring.traces", "10Gi");
for (const e of ["nodeExporter", "kubeStateMetrics"])
  add(`monitoring.${e}.enabled`, { default: true, override: false, invalid: "yes" });
for (const e of ["nodeExporter", "kubeStateMetrics"]) {
  add(`monitoring.${e}.external.namespace`, { default: "kube-system", override: "monitoring", invalid: "" });
  add(`monitoring.${e}.external.serviceName`, {
    default: CHART,
    override: "exporter",
    invalid: "",
    note: "a stack service name the reference hides",
  });
}

// Limits
for (const t of ["connect-timeout", "read-timeout", "write-timeout"])
  add(`ingress.annotations.${t}`, { default: "180000", override: "240000", invalid: "soon" });
add("automation.env.RAILS_MAX_THREADS", { default: "15", override: "20", invalid: "0" });
add("automation.env.DYNAMIC_DOCUMENT_GENERATION_LIMITATION", { default: "", override: "100", invalid: "lots" });
add("ultron.terminationGracePeriodSeconds", { default: 1800, override: 3600, invalid: 0 });
add("ultron.env.MAXIMUM_CODE_DOCUMENT_LENGTH", { default: 2500, override: 5000, invalid: 0 });
add("ultron.env.GENERIC_ERD_DOCUMENT_LIMIT", { default: 7, override: 9, invalid: 0 });
add("ultron.env.GENERIC_ERD_DOCUMENT_PER_RUN", { default: 7, override: 9, invalid: 0 });
add("smtp.config.messageSizeLimit", { default: "52428800", override: "10m", invalid: "big" });
add("mq.extraConfiguration", {
  default: "consumer_timeout = 31622400000",
  override: "consumer_timeout = 3600000",
  invalid: "",
});
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
  frontend: "v26.02.03",
  frontend_core: "v26.02.16.2",
  swef: "v26.02.03-s",
  automation: "v26.02.16.2",
  ultron: "v26.02.16.2-u",
  document_converter: "v25.09.17",
  graphql: "v26.02.16.2",
  browser: "latest",
  localllm: "v0.7.0",
  llmproxy: "v1.81.3-stable",
  boost: "v26.02.16.4",
  html_conversion: "v26.02.23.1",
  objstore: "RELEASE.2024-12-18T13-15-44Z",
  mail: "4.4.0",
  smtp: "v3.7.0",
  sqldb: "14.15.0",
  cache: "6.2.16-debian-12-r3",
  docdb: "5.0.24-debian-11-r20",
  mq: "3.8.35-debian-11-r5",
  gateway: "3.7",
  vectordb: "pg16",
  metrics: "v3.1.0",
  dashboards: "11.6.5",
  logs: "3.3.1",
  logagent: "3.3.1",
  opentelemetry: "0.117.0",
  kubeStateMetrics: "v2.14.0",
  nodeExporter: "v1.8.2",
  blackboxExporter: "v0.25.0",
  traces: "2.7.0",
};
for (const [component, tag] of Object.entries(TAGS))
  add(`image.${component}.tag`, { na: fixedValue, default: tag, fixed: "v0.0.1" });

// Named in prose
add("sqldb.persistence.storageClassName", { default: "", override: "fast", invalid: 3 });
add("credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_<n>_<MODEL>", {
  na: placeholder,
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
// "Instance 1 has models suffixes …": one key each. Clouda mode demands an instance (the row above), not every model.
for (const model of ["ADA", "4O", "4O_MINI", "41", "41_MINI", "41_NANO", "O1", "O3", "O3_MINI", "O4_MINI"]) {
  add(`credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_${model}`, {
    na: placeholder,
    secret: true,
    override: S(`instance-${model}`),
    invalid: "behavior=clouda,url=not a url",
    base: "prod-azure",
    note: "Required per the reference; the program demands at least one instance key in clouda mode, not each model",
  });
}
add("storage.provider", { default: "S3", override: "Minio", invalid: "GCS" });
add("objstore.mode", { default: "distributed", override: "standalone", invalid: "replicated", on: minio });
add("objstore.persistence.enabled", { default: true, override: false, invalid: "yes", on: minio });
add("objstore.persistence.size", { default: "10Gi", override: "20Gi", invalid: "", on: minio });
add("objstore.persistence.accessMode", {
  default: "ReadWriteOnce",
  override: "ReadWriteMany",
  invalid: "Shared",
  on: minio,
});
add("objstore.persistence.storageClass", { default: "", override: "fast", invalid: 3, on: minio });
add("image.<component>.repository", {
  na: fixedValue,
  param: "image.frontend.repository",
  rendered: "image.frontend.repository",
  default: CHART,
  fixed: "registry.example.org/frontend",
  note: "repositories are the package's, left to the chart",
});

export const OPERATIONS_ROWS = rows;
