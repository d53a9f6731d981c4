/** The conformance table: data services, in the cluster or outside it. */
import { CHART, GENERATED, NA, fixedValue, placeholder, S, section } from "./row.js";

const { rows, add } = section();

// Data services
for (const svc of ["sqldb", "cache", "docdb", "mq", "graphql", "gateway"]) {
  add(`${svc}.enabled`, {
    na: ["sqldb", "cache", "docdb", "mq"].includes(svc) ? { override: NA.follows } : undefined,
    default: true,
    invalid: "yes",
    fixed: ["sqldb", "cache", "docdb", "mq"].includes(svc) ? false : undefined,
    override: ["graphql", "gateway"].includes(svc) ? false : undefined,
    note: "a data service in the cluster cannot be switched off: data.<service> says where it runs",
  });
}
add("sqldb.global.sqldb.auth.postgresPassword", {
  secret: true,
  default: GENERATED("sqldb-superuser", 32),
  override: S("super"),
  invalid: "",
});
const NAME_CHOICE =
  "the reference has a placeholder the stack must replace; the program names the in-cluster database and its user itself, since no one outside the cluster needs to know them";
add("sqldb.global.sqldb.auth.username", { default: "platform", choice: NAME_CHOICE, override: "app", invalid: "" });
add("sqldb.global.sqldb.auth.password", {
  secret: true,
  default: GENERATED("sqldb", 32),
  override: S("pw"),
  invalid: "",
});
add("sqldb.global.sqldb.auth.database", { default: "platform", choice: NAME_CHOICE, override: "app", invalid: "" });
add("cache.architecture", { default: "standalone", override: "replication", invalid: "cluster" });
add("cache.persistence.size", { default: "2Gi", override: "4Gi", invalid: "" });
add("cache.auth.enabled", { default: false, override: true, invalid: "yes" });
add("cache.auth.sentinel", {
  default: false,
  invalid: "yes",
  fixed: true,
  override: true,
  feature: (r) => (r.cache = { architecture: "replication" }),
  note: "needs cache.architecture replication",
});
add("cache.auth.password", {
  secret: true,
  default: "",
  override: S("cache"),
  feature: (r) => (r.cache = { auth: { enabled: true } }),
  note: "used only with cache.auth.enabled",
});
add("cache.master.service.ports.cache", { default: "6379", override: "6380", invalid: "70000" });
add("docdb.architecture", { default: "standalone", override: "replicaset", invalid: "sharded" });
add("docdb.global.storageClass", { default: "default", override: "fast", invalid: 3 });
add("docdb.persistence.storageClass", { default: "default", override: "fast", invalid: 3 });
add("docdb.persistence.size", { default: "5Gi", override: "10Gi", invalid: "" });
add("docdb.useStatefulSet", { default: true, override: false, invalid: "yes" });
add("docdb.auth.enabled", { default: true, override: false, invalid: "yes" });
add("docdb.auth.databases", { default: ["platform"], choice: NAME_CHOICE, override: ["app"], invalid: "app" });
add("docdb.auth.usernames", { default: ["platform"], choice: NAME_CHOICE, override: ["app"], invalid: ["a", "b"] });
add("docdb.auth.passwords", {
  secret: true,
  default: GENERATED("docdb-0", 32, { list: true }),
  override: [S("p")],
  invalid: [S("a"), S("b")],
});
add("mq.auth.tls.enabled", { default: false, override: true, invalid: "yes" });
add("mq.auth.username", { default: "admin", override: "platform", invalid: "" });
add("mq.auth.password", { secret: true, default: GENERATED("mq", 32), override: S("mq"), invalid: "" });
add("mq.auth.erlangCookie", {
  secret: true,
  default: GENERATED("mq-erlang-cookie", 48),
  override: S("cookie"),
  invalid: "",
});
add("mq.persistence.size", { default: "2Gi", override: "4Gi", invalid: "" });
add("graphql.env.ENABLE_CONSOLE", { default: "false", override: "true", invalid: "yes" });
add("graphql.env.DEV_MODE", { default: "false", override: "true", invalid: "yes" });
add("graphql.env.ENABLED_LOG_TYPES", {
  default: "startup, http-log, webhook-log, websocket-log, query-log",
  override: "startup",
  invalid: "",
});
add("gateway.env.prefix", { default: CHART, override: "/gw/", invalid: "", note: "a prefix path the reference hides" });
add("gateway.env.database", { default: "off", override: "postgres", invalid: "" });
add("gateway.env.plugins", {
  default: "bundled,jwt,acme",
  override: "bundled,jwt,acme,cors",
  invalid: "bundled,jwt",
  note: "the jwt and acme plugins must stay (reference: Authentication)",
});
add("gateway.env.real_ip_header", { default: "x-real-ip", override: "x-forwarded-for", invalid: "" });
add("gateway.env.trusted_ips", { default: "0.0.0.0/0,::/0", override: "10.0.0.0/8", invalid: "" });
add("gateway.ingressController.ingressClass", { default: "gateway", override: "kong", invalid: "" });
add("gateway.postgresql.enabled", { default: false, override: true, invalid: "yes" });
add("gateway.effectiveSemver", {
  deviation: {
    renders: "3.7",
    why: "the reference's default is empty and Required; the program fills in the version of the gateway image it deploys (image.gateway.tag 3.7), so a stack need not repeat it",
  },
  override: "3.8",
  invalid: "",
});
add("gateway.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });
add("gateway.proxy.loadBalancerSourceRanges", { default: [], override: ["203.0.113.0/24"], invalid: ["everyone"] });
add("vectordb.postgresql.username", { default: "vector", choice: NAME_CHOICE, override: "vec", invalid: "" });
add("vectordb.postgresql.password", {
  secret: true,
  default: GENERATED("vectordb", 32),
  override: S("vec"),
  invalid: "",
});
add("vectordb.postgresql.database", { default: "vector", choice: NAME_CHOICE, override: "vec", invalid: "" });
add("vectordb.postgresql.port", { default: 5432, override: 5433, invalid: 0 });
add("vectordb.persistence.enabled", { default: true, override: false, invalid: "yes" });
add("vectordb.persistence.size", { default: "64Gi", override: "128Gi", invalid: "" });
add("vectordb.persistence.storageClassName", { default: "", override: "fast", invalid: 3 });
add("vectordb.image.pullPolicy", { default: "IfNotPresent", override: "Always", invalid: "Sometimes" });

// External services (onprem runs every data service outside the cluster)
const ext = { base: "onprem", na: placeholder } as const;
add("externalSqldb.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.sqldb" });
for (const k of ["username", "host", "dbName"])
  add(`externalSqldb.${k}`, {
    ...ext,
    override: k === "host" ? "pg2.corp.example" : "other",
    required: true,
    invalid: k === "host" ? "postgres://pg:5432" : undefined,
  });
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
add("externalDocdb.mongodb_uri", {
  ...ext,
  secret: true,
  override: S("uri"),
  required: true,
  invalid: "mongodb://a:1,b:2/db",
  note: "format checked where readable (plaintext here)",
});
add("externalVectordb.enabled", {
  na: { override: NA.follows },
  default: false,
  fixed: true,
  note: "follows data.vectordb",
});
for (const k of ["host", "username", "database"])
  add(`externalVectordb.${k}`, {
    ...ext,
    override: k === "host" ? "vec2.corp.example" : "other",
    required: true,
    invalid: k === "host" ? "vec:5432" : undefined,
  });
add("externalVectordb.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalVectordb.port", { default: "5432", override: "6432", invalid: "x" });
add("externalVectordb.sslMode", { na: fixedValue, default: "disable", fixed: "require" });
add("externalMq.enabled", { na: { override: NA.follows }, default: false, fixed: true, note: "follows data.mq" });
add("externalMq.host", { ...ext, override: "mq2.corp.example", invalid: "amqps://mq:5671", required: true });
add("externalMq.port", { default: "5672", override: "5671", invalid: "x" });
add("externalMq.username", { ...ext, override: "app", required: true });
add("externalMq.password", { ...ext, secret: true, override: S("pw"), required: true });
add("externalMq.useTls", { default: true, override: false, invalid: "yes" });

export const DATA_ROWS = rows;
