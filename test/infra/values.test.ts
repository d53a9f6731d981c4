import { describe, expect, it } from "vitest";
import { buildPlatformValues } from "../../infra/platform/values/index.js";
import type { ValuesInput } from "../../infra/platform/values/types.js";
import type { StackSpec } from "../../infra/stack/schema.js";
import { objstoreReplicas } from "../../infra/storage/objstore.js";
import { at } from "./plan-helpers.js";
import { SECRETS, specOf } from "./fixtures.js";

const storageFor = (spec: StackSpec): ValuesInput["storage"] => ({
  provider: spec.storage.provider,
  chartSecret: { ACCESS_KEY_ID: "S-access", SECRET_ACCESS_KEY: "S-secret-key" },
  componentValues:
    spec.storage.provider === "Minio"
      ? { enabled: true, mode: spec.objstore.mode, replicas: objstoreReplicas(spec.objstore) }
      : { enabled: false },
});
const valuesOf = (spec: StackSpec, managed: ValuesInput["managed"] = {}) =>
  buildPlatformValues({ spec, secrets: SECRETS, storage: storageFor(spec), managed });

const local = valuesOf(specOf("local"));

describe("platform values builder", () => {
  // One or more paths per parameter group of the deployment reference, with its default.
  it.each<[string, unknown]>([
    // Registry and images
    ["registryCredentials.server", "registry.example.com"],
    ["image.frontend.tag", "v26.02.03"],
    ["image.ultron.tag", "v26.02.16.2-u"],
    ["image.objstore.tag", "RELEASE.2024-12-18T13-15-44Z"],
    ["image.traces.tag", "2.7.0"],
    ["image.blackboxExporter.tag", "v0.25.0"],
    // JWT and credentials
    ["jwt.secret", "S-jwt"],
    ["jwt.algorithm", "HS512"],
    ["credentials.graphql.GRAPHQL_ADMIN_SECRET", "S-graphql-admin"],
    ["credentials.boost.SERVICE_BOOST_API_KEY_MAIN", "S-boost-main"],
    ["credentials.boost.SERVICE_BOOST_LLMPROXY_KEY", "S-boost-llmproxy"],
    ["credentials.html_conversion.BEARER_TOKEN", "S-html"],
    ["credentials.translator.translator_service", "cloudb_translate"],
    ["credentials.errortracker.post_server_item_access_token", null],
    // Audit logs and LLM
    ["auditLogs.enabled", false],
    ["auditLogs.outputs.cloudb_s3.enabled", true],
    ["llm.AI_MODE", "direct"],
    ["llm.secretKeys.clouda.VERSION", "2024-10-21"],
    ["llm.secretKeys.managed.CONVERSE_GLOBAL_REGION", "us-east-1"],
    // Ingress and limits
    ["ingress.className", "gateway"],
    ["ingress.annotations.strip-path", "true"],
    ["ingress.annotations.connect-timeout", "180000"],
    ["ingress.dashboards.domain", "dashboards.platform.localtest.me"],
    ["ingress.metrics.pathPrefix", "/metrics"],
    ["ingress.objstore.enabled", false],
    // Storage, company, mail
    ["storage.provider", "Minio"],
    ["storage.secret.objstore.ACCESS_KEY_ID", "S-access"],
    ["objstore.mode", "standalone"],
    ["company.language", "en"],
    ["mailer.default_from_email", "noreply@localtest.me"],
    ["smtp.service.port", 25],
    ["smtp.service.targetPort", 587],
    ["smtp.config.messageSizeLimit", "52428800"],
    ["smtp.config.allowedNetworks", "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"],
    ["mail.enabled", false],
    ["mail.logrotate.maxage", 30],
    ["mail.persistence.accessModes", ["ReadWriteOnce"]],
    // Components: env, limits, probes, resources table
    ["frontend.env.REACT_APP_PROJECT_ENV", "production"],
    ["frontend.resources.limits.cpu", "10000m"],
    ["swef.env.CODEGEN_TOKEN", "token"],
    ["automation.env.TZ", "Asia/Tokyo"],
    ["automation.env.RAILS_MAX_THREADS", "15"],
    ["automation.env.DYNAMIC_DOCUMENT_GENERATION_LIMITATION", ""],
    ["automation.services.web.livenessProbe.httpGet.path", "/health"],
    ["automation.services.web.readinessProbe.httpGet.port", 3000],
    ["automation.services.web.lifecycle.preStop.exec.command", ["sleep", "15"]],
    ["automation.services.jobs.resources.requests.memory", "1500Mi"],
    ["automation.services.identifier.enabled", false],
    ["ultron.terminationGracePeriodSeconds", 1800],
    ["ultron.env.MAXIMUM_CODE_DOCUMENT_LENGTH", 2500],
    ["ultron.env.GENERIC_ERD_DOCUMENT_PER_RUN", 7],
    ["ultron.env.VECTOR_SERVICE", "pgvector"],
    ["ultron.lifecycle.preStop.httpGet.path", "/stop-all-consumer"],
    ["ultron.secret.CLI_ZIPPER_PRIVATE_KEY", "S-ultron-key"],
    ["document_converter.env.USE_BASE_64", "true"],
    ["document_converter.resources.requests.cpu", "1024m"],
    ["localllm.enabled", false],
    ["localllm.env.PORT", "8000"],
    ["localllm.resources.limits.memory", "32Gi"],
    ["boost.env.SERVICE_BOOST_ERRORTRACKER_ENVIRONMENT", "pilot"],
    ["boost.env.SERVICE_BOOST_SEARCH_URL", "https://search.platform.localtest.me"],
    ["browser.resources.limits.memory", "4Gi"],
    ["html_conversion_worker.replicaCount", 2],
    // Data services
    ["sqldb.global.sqldb.auth.password", "S-sqldb"],
    ["sqldb.global.sqldb.auth.postgresPassword", "S-sqldb-super"],
    ["cache.architecture", "standalone"],
    ["cache.master.service.ports.cache", "6379"],
    ["docdb.persistence.size", "5Gi"],
    ["docdb.auth.passwords", ["S-docdb"]],
    ["docdb.resources.limits.memory", "1500Mi"],
    ["mq.auth.username", "admin"],
    ["mq.auth.erlangCookie", "S-erlang"],
    ["mq.extraConfiguration", "consumer_timeout = 31622400000"],
    ["graphql.env.ENABLE_CONSOLE", "false"],
    ["graphql.resources.limits.cpu", "1000m"],
    ["gateway.replicaCount", 2],
    ["gateway.env.client_body_buffer_size", "5120k"],
    ["gateway.env.plugins", "bundled,jwt,acme"],
    ["gateway.env.database", "off"],
    ["gateway.proxy.loadBalancerSourceRanges", []],
    ["vectordb.postgresql.port", 5432],
    ["vectordb.persistence.size", "64Gi"],
    ["externalSqldb.maxOpenConns", "20"],
    ["externalVectordb.sslMode", "disable"],
    ["externalMq.port", "5672"],
    // Monitoring and its limits
    ["monitoring.enabled", true],
    ["monitoring.dashboards.adminPassword", "S-dashboards"],
    ["monitoring.metrics.retention", "15d"],
    ["monitoring.metrics.scrapeInterval", "15s"],
    ["monitoring.metrics.resources.limits.memory", "2Gi"],
    ["monitoring.logs.storage.type", "filesystem"],
    ["monitoring.opentelemetry.samplerRatio", "1.0"],
    ["monitoring.traces.logLevel", "info"],
    ["monitoring.traces.retention", "24h"],
    ["monitoring.traces.ingester.maxBlockDuration", "30m"],
    ["monitoring.traces.memBallastSizeMbs", 1024],
    ["monitoring.traces.limits.ingestionBurstSizeBytes", 20000000],
    ["monitoring.traces.resources.requests.memory", "1Gi"],
    ["monitoring.nodeExporter.external.namespace", "kube-system"],
    ["monitoring.kubeStateMetrics.resources.requests.cpu", "10m"],
  ])("sets %s", (path, expected) => {
    expect(at(local, path)).toEqual(expected);
  });

  it("feeds one secret to both sides of each required equality", () => {
    expect(at(local, "automation.env.PUBLIC_LLM_INTERNAL_SECRET")).toBe("S-llm-internal");
    expect(at(local, "ultron.secret.PUBLIC_LLM_INTERNAL_SECRET")).toBe("S-llm-internal");
    expect(at(local, "credentials.boost.SERVICE_BOOST_AUTO_API_KEY")).toBe(
      at(local, "credentials.graphql.GRAPHQL_ADMIN_SECRET"),
    );
  });

  it("switches an in-cluster service off and fills external* when it is managed", () => {
    const spec = specOf("staging-aws");
    const v = valuesOf(spec, {
      sqldb: { host: "db.internal", port: 5432, username: "platform", password: "S-sqldb", database: "platform" },
      cache: { host: "cache.internal", port: 6379, username: "default", password: "S-cache" },
      docdb: { uri: "mongodb://u:S-docdb@docdb.internal:27017/platform?tls=true&replicaSet=rs0" },
    });
    expect(at(v, "sqldb.enabled")).toBe(false);
    expect(at(v, "externalSqldb")).toMatchObject({ enabled: true, host: "db.internal", dbName: "platform" });
    expect(at(v, "cache.enabled")).toBe(false);
    expect(at(v, "externalCache")).toMatchObject({ enabled: true, useTls: true });
    expect(at(v, "externalDocdb.mongodb_uri")).toMatch(/^mongodb:\/\//);
  });

  it("keeps in-cluster services on and external* off when everything runs in the cluster", () => {
    for (const svc of ["sqldb", "cache", "docdb", "mq", "vectordb"]) expect(at(local, `${svc}.enabled`)).toBe(true);
    for (const ext of ["externalSqldb", "externalCache", "externalDocdb", "externalVectordb", "externalMq"])
      expect(at(local, `${ext}.enabled`)).toBe(false);
  });

  it("follows storage.provider in the dependent settings", () => {
    const azure = valuesOf(specOf("prod-azure"));
    expect(at(azure, "ultron.env.STORAGE_DISK")).toBe("azure");
    expect(at(azure, "document_converter.env.USE_CLOUDA")).toBe("true");
    expect(at(azure, "storage.secret.clouda")).toBeDefined();
    expect(at(azure, "objstore.enabled")).toBe(false);
  });

  it("leaves the values the reference hides, and keys it does not define, to the chart unless the stack sets them", () => {
    const hidden = [
      "image.imagePullSecrets",
      "jwt.key",
      "gateway.env.prefix",
      "boost.env.SERVICE_BOOST_MODEL_FILTER",
      "boost.env.SERVICE_BOOST_PROLOGUE_MODULES",
      "boost.env.SERVICE_BOOST_DEFAULT_WORKFLOW",
      "boost.env.SERVICE_BOOST_EPILOGUE_MODULES",
      "boost.env.SERVICE_BOOST_CONTEXT_SYSTEM_SERVICE_URL",
      "frontend.env.REACT_APP_PLAYWRIGHT_TRACING_VIEWER_URL",
      "document_converter.env.LOCAL_SERVER",
      "monitoring.nodeExporter.external.serviceName",
      "monitoring.kubeStateMetrics.external.serviceName",
      "llm.deployments",
      "llmproxy.port",
      "objstore.rootUser",
    ];
    for (const path of hidden) expect(at(local, path), path).toBeUndefined();
    const set = valuesOf(
      specOf("local", (r) => {
        r.jwt = { key: "site-key" };
        r.boost = { env: { SERVICE_BOOST_PROLOGUE_MODULES: "log-workflow;sso" } };
        r.llm.deployments = { embedding: "embed-3" };
        r.llmproxy = { port: 4100 };
      }),
    );
    expect([
      at(set, "jwt.key"),
      at(set, "boost.env.SERVICE_BOOST_PROLOGUE_MODULES"),
      at(set, "llm.deployments.embedding"),
      at(set, "llmproxy.port"),
    ]).toEqual(["site-key", "log-workflow;sso", "embed-3", 4100]);
  });

  it("renders every LLM provider key, set or empty, so no package placeholder survives", () => {
    expect(at(local, "llm.secretKeys.providerb")).toEqual({ API_KEY: "" });
    expect(at(local, "llm.secretKeys.providerc")).toEqual({ GENERATIVE_API_KEY: "" });
    expect(at(local, "llm.secretKeys.clouda.KEYS")).toBe("[]");
    expect(at(local, "llm.secretKeys.managed.CONVERSE_ACCESS_KEY_ID")).toBe("");
    expect(at(local, "llm.secretKeys.managed.CONVERSE_REGION")).toBe("ap-northeast-1");
  });

  it("takes image tags from the chart version's table, and none for a version without one", () => {
    expect(at(local, "image.boost.tag")).toBe("v26.02.16.4");
    const bumped = valuesOf(specOf("local", (r) => (r.platform.version = "26.3.1")));
    expect(
      Object.values(at(bumped, "image") as Record<string, unknown>).some(
        (v) => v && typeof v === "object" && "tag" in v,
      ),
    ).toBe(false);
  });

  it("renders the objstore's pod count once, as objstore.replicas, consistent with its mode", () => {
    expect(at(local, "objstore.replicas")).toBe(1); // standalone
    expect(at(local, "objstore.replicaCount")).toBeUndefined();
    const distributed = valuesOf(specOf("local", (r) => (r.objstore = { mode: "distributed" })));
    expect(at(distributed, "objstore.replicas")).toBe(4);
    expect(at(distributed, "objstore.replicaCount")).toBeUndefined();
    expect(
      at(valuesOf(specOf("local", (r) => (r.objstore = { mode: "distributed", replicas: 8 }))), "objstore.replicas"),
    ).toBe(8);
  });

  it("puts secrets only where the reference asks for them", () => {
    const where: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (typeof v === "string" && /^S-/.test(v)) where.push(path);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    };
    walk(local, "");
    expect(where.every((p) => /(secret|Secret|SECRET|password|Password|KEY|TOKEN|Cookie|passwords)/.test(p))).toBe(
      true,
    );
  });
});
