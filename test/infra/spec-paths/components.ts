/**
 * The conformance table: the fields every component has (reference: Components, common rules,
 * applied to each component "What the service does" names), the monitoring components' placement
 * and resource defaults, and the must-override table's paths no other table names.
 */
import { ACM_ANNOTATION } from "../../../infra/constants.js";
import { CHART, NA, minio, section, type Edit, type SpecRow } from "./row.js";

const { rows, add } = section();

/** Components whose `enabled` another section's row already covers (data services, mail, smtp). */
const ENABLED_ELSEWHERE = new Set(["sqldb", "cache", "docdb", "mq", "graphql", "gateway", "smtp", "mail"]);
/** `enabled` defaults to false for these (the reference's list). */
const OFF_BY_DEFAULT = new Set(["localllm", "automation.services.identifier", "smtp", "mail", "objstore"]);
/** Components without a replicas column in the resource table: the reference shows no default. */
const NO_REPLICA_DEFAULT = ["frontend_core", "automation", "sqldb", "cache", "docdb", "mq", "vectordb"];

const COMPONENTS = [
  "frontend",
  "frontend_core",
  "swef",
  "automation",
  "ultron",
  "boost",
  "llmproxy",
  "localllm",
  "browser",
  "document_converter",
  "html_conversion",
  "html_conversion_worker",
  "sqldb",
  "cache",
  "docdb",
  "mq",
  "vectordb",
  "graphql",
  "gateway",
  "objstore",
  "mail",
  "smtp",
  "automation.services.web",
  "automation.services.jobs",
  "automation.services.jobs-priority",
  "automation.services.rpc",
  "automation.services.identifier",
];

/** The common fields with a default, an override that differs from it, and a value refused. */
const PLACEMENT: Array<[string, Omit<SpecRow, "path">]> = [
  ["nodeSelector", { default: {}, override: { pool: "agents" }, invalid: "agents" }],
  ["tolerations", { default: [], override: [{ operator: "Exists", effect: "NoSchedule" }], invalid: "gpu" }],
  ["affinity", { default: {}, override: { nodeAffinity: {} }, invalid: "near" }],
  ["serviceAccount.create", { default: true, override: false, invalid: "yes" }],
  ["serviceAccount.name", { default: "", override: "agents", invalid: 3 }],
  ["serviceAccount.annotations", { default: {}, override: { "example.com/role": "agents" }, invalid: "x" }],
];

for (const c of COMPONENTS) {
  // The objstore component is rendered only with the objstore storage (storage.provider Minio).
  const on: Edit | undefined = c === "objstore" ? minio : undefined;
  if (c === "objstore") {
    add("objstore.enabled", {
      default: false,
      na: { override: NA.follows },
      note: "follows storage.provider (on with Minio)",
    });
  } else if (c === "vectordb") {
    add("vectordb.enabled", {
      default: true,
      fixed: false,
      invalid: "yes",
      na: { override: NA.follows },
      note: "a data service in the cluster cannot be switched off: data.vectordb says where it runs",
    });
  } else if (!ENABLED_ELSEWHERE.has(c)) {
    const off = OFF_BY_DEFAULT.has(c);
    add(`${c}.enabled`, { default: !off, override: off, invalid: "yes" });
  }
  if (c === "frontend_core")
    add(`${c}.replicaCount`, {
      default: 1,
      choice: "the resource table has no frontend_core row: one replica, as for every application component it lists",
      override: 3,
      invalid: 0,
    });
  else if (NO_REPLICA_DEFAULT.includes(c))
    add(`${c}.replicaCount`, {
      default: CHART,
      override: 3,
      invalid: 0,
      note: "the reference shows no replicas default: the chart's applies",
    });
  for (const f of ["nameOverride", "fullnameOverride"])
    add(`${c}.${f}`, { default: "", na: { override: NA.fixed }, fixed: "renamed", on });
  for (const [f, columns] of PLACEMENT) add(`${c}.${f}`, { ...columns, on });
}

// Monitoring components: placement as in the common rules, request defaults, the metrics limits and replicas.
const MONITORING_REQUESTS: Record<string, [string, string]> = {
  metrics: ["512Mi", "100m"],
  dashboards: ["256Mi", "100m"],
  logs: ["256Mi", "100m"],
  logagent: ["128Mi", "100m"],
  opentelemetry: ["256Mi", "100m"],
  traces: ["1Gi", "100m"],
  nodeExporter: ["16Mi", "10m"],
  kubeStateMetrics: ["64Mi", "10m"],
};
for (const [m, [memory, cpu]] of Object.entries(MONITORING_REQUESTS)) {
  add(`monitoring.${m}.nodeSelector`, { default: {}, override: { pool: "monitoring" }, invalid: "x" });
  add(`monitoring.${m}.tolerations`, {
    default: [],
    override: [{ operator: "Exists", effect: "NoSchedule" }],
    invalid: "x",
  });
  add(`monitoring.${m}.resources.requests.memory`, { default: memory, override: "3Gi", invalid: "lots" });
  add(`monitoring.${m}.resources.requests.cpu`, { default: cpu, override: "1500m", invalid: "lots" });
}
add("monitoring.metrics.resources.limits.memory", { default: "2Gi", override: "3Gi", invalid: "lots" });
add("monitoring.metrics.resources.limits.cpu", { default: "1000m", override: "1500m", invalid: "lots" });
add("monitoring.metrics.replicaCount", { default: 1, override: 2, invalid: 0 });

// Must-override table: the TLS annotation (cloudb), and the vectordb group under the name it uses there.
add("gateway.proxy.annotations", {
  na: { default: NA.placeholder },
  override: { [ACM_ANNOTATION]: "arn:aws:acm:ap-northeast-1:111122223333:certificate/other" },
  required: true,
  invalid: { [ACM_ANNOTATION]: "my-certificate" },
  note: "cloudb: the certificate's ARN for the load balancer (MINIMAL is a cloudb stack)",
});
add("vectordb.sqldb.*", {
  na: { default: NA.alias, override: NA.alias },
  note: "the must-override table's name for the group its Data services table calls vectordb.postgresql.* (those rows check it)",
});

export const COMPONENT_ROWS = rows;
