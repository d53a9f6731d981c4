/** Where things run: storage provider, data service modes, network placement, API limits. */
import { CLOUDB_STORAGE_REGION } from "../constants.js";
import { heartbeatProblem, MIN_READ_TIMEOUT_MS } from "../heartbeat.js";
import { parseBytes } from "./bytes.js";
import { checkable, requireAll, rule, type Rule } from "./rule.js";
import { DATA_SERVICES, EXTERNAL_GROUP, STORAGE_DISK } from "./schema.js";
import { MONGODB_URI } from "./schema-data.js";
import { bucketsExist } from "./schema-web.js";
import { AgentsFileError, validateAgents } from "../../service/src/domain/agents/agent-spec.js";

/** `…@sha256:<64 hex>` or `…:X.Y.Z[-pre]` (a release tag, never overwritten by the release workflow). */
const PINNED_IMAGE = /(@sha256:[0-9a-f]{64}|:\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)$/;
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const deployRules: Rule[] = [
  rule(["storage", "cloud"], (s, report) => {
    const { provider } = s.storage;
    if (provider === "S3") {
      const b = s.storage.secret.cloudb;
      if (!bucketsExist(s) && s.cloud.provider !== "aws") {
        report(
          "cloud.provider",
          "must be aws (or none, on premises) when storage.provider is S3 and the buckets are created (set storage.existingBuckets: true to use buckets that exist)",
        );
      }
      if (bucketsExist(s) && s.cloud.provider !== "aws") {
        // Off AWS no IAM user can be created for the buckets: the chart needs the keys given.
        requireAll(
          report,
          "when storage.existingBuckets is true off AWS (no IAM user can be created for the buckets)",
          {
            "storage.secret.cloudb.ACCESS_KEY_ID": b.ACCESS_KEY_ID,
            "storage.secret.cloudb.SECRET_ACCESS_KEY": b.SECRET_ACCESS_KEY,
          },
        );
      }
      if (b.REGION !== CLOUDB_STORAGE_REGION) {
        report(
          "storage.secret.cloudb.REGION",
          `must be ${CLOUDB_STORAGE_REGION}: signed URLs are generated for that region and the buckets must be created there`,
        );
      }
      const buckets = {
        BUCKET: b.BUCKET,
        PUBLIC_BUCKET: b.PUBLIC_BUCKET,
        EXPORT_PROJECT_BUCKET: b.EXPORT_PROJECT_BUCKET,
        ULTRON_BUCKET: b.ULTRON_BUCKET,
      };
      for (const [key, name] of Object.entries(buckets)) {
        const path = `storage.secret.cloudb.${key}`;
        if (!name) report(path, "is required when storage.provider is S3");
        else if (!S3_BUCKET.test(name))
          report(path, "must be a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)");
      }
    }
    if (provider !== "S3" && s.storage.existingBuckets)
      report("storage.existingBuckets", "applies to storage.provider S3 only");
    if (provider === "AzureStorage") {
      const a = s.storage.secret.clouda;
      if (s.cloud.provider !== "azure") report("cloud.provider", "must be azure when storage.provider is AzureStorage");
      requireAll(report, "when storage.provider is AzureStorage", {
        "storage.secret.clouda.STORAGE_ACCOUNT_NAME": a.STORAGE_ACCOUNT_NAME,
        "storage.secret.clouda.CONTAINER": a.CONTAINER,
        "storage.secret.clouda.ULTRON_CONTAINER": a.ULTRON_CONTAINER,
        "storage.secret.clouda.EXPORT_PROJECT_CONTAINER": a.EXPORT_PROJECT_CONTAINER,
        "storage.secret.clouda.PUBLIC_CONTAINER": a.PUBLIC_CONTAINER,
      });
    }
    if (provider === "Minio") {
      const o = s.storage.secret.objstore;
      if (o.FORCE_PATH_STYLE !== "true")
        report("storage.secret.objstore.FORCE_PATH_STYLE", 'must be "true" for the objstore provider');
      if (o.REGION !== "us-east-1")
        report("storage.secret.objstore.REGION", "must be us-east-1 (fixed for the objstore provider)");
    }
  }),
  rule(["storage", "objstore"], (s, report) => {
    const wanted = s.storage.provider === "Minio";
    if (s.objstore.enabled !== wanted && s.objstore.enabled) {
      report("objstore.enabled", "must be false unless storage.provider is Minio (it follows storage.provider)");
    }
    const { mode, replicas, replicaCount } = s.objstore;
    if (mode === "distributed" && replicas !== undefined && replicas < 4)
      report("objstore.replicas", "must be at least 4 in distributed mode");
    if (mode === "standalone" && replicas !== undefined && replicas !== 1)
      report("objstore.replicas", "must be 1 in standalone mode (one server)");
    // The objstore's pod count is objstore.replicas alone: a second count could only disagree.
    if (replicaCount !== undefined)
      report("objstore.replicaCount", "is not an objstore parameter: set objstore.replicas");
  }),
  rule(["storage", "ultron", "document_converter"], (s, report) => {
    const disk = STORAGE_DISK[s.storage.provider];
    if (s.ultron.env.STORAGE_DISK !== undefined && s.ultron.env.STORAGE_DISK !== disk) {
      report(
        "ultron.env.STORAGE_DISK",
        `must be ${disk} for storage.provider ${s.storage.provider} (leave it unset to follow the provider)`,
      );
    }
    const useClouda = String(s.storage.provider === "AzureStorage");
    if (s.document_converter.env.USE_CLOUDA !== undefined && s.document_converter.env.USE_CLOUDA !== useClouda) {
      report(
        "document_converter.env.USE_CLOUDA",
        `must be ${useClouda} for storage.provider ${s.storage.provider} (leave it unset to follow the provider)`,
      );
    }
  }),
  rule(["data", "cloud"], (s, report) => {
    const managed = DATA_SERVICES.filter((svc) => s.data[svc] === "managed");
    if (managed.length === 0) return;
    if (s.cloud.provider === "none") {
      for (const svc of managed) report(`data.${svc}`, "managed needs cloud.provider aws or azure");
      return;
    }
    if (s.cloud.provider === "azure" && s.data.mq === "managed") {
      report("data.mq", "Azure has no managed RabbitMQ: use inCluster, or external with a broker you run");
    }
    const pg = s.data.azure;
    if (s.cloud.provider === "azure" && pg.postgresTier === "Burstable" && pg.postgresHighAvailability !== "Disabled") {
      report(
        "data.azure.postgresHighAvailability",
        "needs postgresTier GeneralPurpose or MemoryOptimized (Azure offers no high availability on Burstable)",
      );
    }
    if (s.cloud.provider === "aws") {
      const a = s.cloud.aws;
      requireAll(report, "for managed data services on aws", { "cloud.aws.vpcId": a.vpcId });
      if (a.subnetIds.length < 2)
        report("cloud.aws.subnetIds", "needs at least two private subnets for managed data services");
      if (a.clientSecurityGroupIds.length === 0 && a.clientCidrs.length === 0) {
        report(
          "cloud.aws.clientSecurityGroupIds",
          "needs the cluster's security group(s) or cloud.aws.clientCidrs: the only sources allowed to reach data services",
        );
      }
    }
    if (s.cloud.provider === "azure") {
      const a = s.cloud.azure;
      const postgres = s.data.sqldb === "managed" || s.data.vectordb === "managed";
      requireAll(report, "for managed data services on azure", {
        "cloud.azure.resourceGroupName": a.resourceGroupName,
        ...(s.data.cache === "managed" || s.data.docdb === "managed" ? { "cloud.azure.subnetId": a.subnetId } : {}),
        ...(postgres
          ? {
              "cloud.azure.postgresSubnetId": a.postgresSubnetId,
              "cloud.azure.postgresPrivateDnsZoneId": a.postgresPrivateDnsZoneId,
            }
          : {}),
      });
    }
  }),
  rule(["cloud", "storage"], (s, report) => {
    if (s.cloud.provider === "azure" && s.storage.provider === "AzureStorage") {
      requireAll(report, "when storage.provider is AzureStorage", {
        "cloud.azure.resourceGroupName": s.cloud.azure.resourceGroupName,
      });
    }
    s.cloud.aws.clientCidrs.forEach((c, i) => {
      if (/\/0$/.test(c)) report(`cloud.aws.clientCidrs[${i}]`, "must not open data services to the internet");
    });
  }),
  rule(
    [
      "data",
      "sqldb",
      "cache",
      "docdb",
      "mq",
      "vectordb",
      "externalSqldb",
      "externalCache",
      "externalDocdb",
      "externalVectordb",
      "externalMq",
    ],
    (s, report) => {
      for (const svc of DATA_SERVICES) {
        const mode = s.data[svc];
        const e = s[EXTERNAL_GROUP[svc]];
        if (e.enabled !== undefined && e.enabled !== (mode !== "inCluster")) {
          report(
            `${EXTERNAL_GROUP[svc]}.enabled`,
            `must be ${mode !== "inCluster"} because data.${svc} is ${mode} (leave it unset to follow data.${svc})`,
          );
        }
        if (mode === "inCluster" && s[svc].enabled === false) {
          report(`${svc}.enabled`, `must not be false while data.${svc} is inCluster: nothing would provide ${svc}`);
        }
      }
      const why = (svc: string) => `when data.${svc} is external`;
      if (s.data.sqldb === "external") {
        const e = s.externalSqldb;
        requireAll(report, why("sqldb"), {
          "externalSqldb.host": e.host,
          "externalSqldb.username": e.username,
          "externalSqldb.password": e.password,
          "externalSqldb.dbName": e.dbName,
        });
      }
      if (s.data.cache === "external") {
        const e = s.externalCache;
        requireAll(report, why("cache"), {
          "externalCache.host": e.host,
          "externalCache.username": e.username,
          "externalCache.password": e.password,
        });
      }
      if (s.data.docdb === "external") {
        const uri = s.externalDocdb.mongodb_uri;
        requireAll(report, why("docdb"), { "externalDocdb.mongodb_uri": uri });
        if (checkable(uri)) {
          if (!MONGODB_URI.test(uri)) report("externalDocdb.mongodb_uri", "must be a mongodb:// or mongodb+srv:// URI");
          else if (
            !uri.startsWith("mongodb+srv://") &&
            /@?[^/]*,/.test(uri.split("/")[2] ?? "") &&
            !/[?&]replicaSet=/.test(uri)
          ) {
            report("externalDocdb.mongodb_uri", "lists several hosts: a replica set needs the replicaSet query option");
          }
        }
      }
      if (s.data.vectordb === "external") {
        const e = s.externalVectordb;
        requireAll(report, why("vectordb"), {
          "externalVectordb.host": e.host,
          "externalVectordb.username": e.username,
          "externalVectordb.password": e.password,
          "externalVectordb.database": e.database,
        });
      }
      if (s.data.mq === "external") {
        const e = s.externalMq;
        requireAll(report, why("mq"), {
          "externalMq.host": e.host,
          "externalMq.username": e.username,
          "externalMq.password": e.password,
        });
      }
    },
  ),
  rule(["vectordb"], (s, report) => {
    if (s.vectordb.sqldb !== undefined) {
      report(
        "vectordb.sqldb",
        "the vector store's credentials are vectordb.postgresql.username, .password, .database, .port (the reference's data table); set them there",
      );
    }
  }),
  rule(["cache", "docdb"], (s, report) => {
    if (s.cache.auth.sentinel && s.cache.architecture !== "replication")
      report("cache.auth.sentinel", "needs cache.architecture replication");
    const a = s.docdb.auth;
    if (a.usernames.length !== a.databases.length)
      report("docdb.auth.usernames", "needs one entry per docdb.auth.databases entry");
    if (a.passwords && a.passwords.length !== a.usernames.length)
      report("docdb.auth.passwords", "needs one entry per docdb.auth.usernames entry");
  }),
  rule(["api"], (s, report) => {
    if (s.api.agents && s.api.agentsFile) report("api.agentsFile", "set either api.agents or api.agentsFile, not both");
    if (!s.api.agents) return;
    // The service's own validator: a stack never deploys an agents file the service would refuse.
    try {
      validateAgents({ agents: s.api.agents }, "api.agents");
    } catch (err) {
      if (!(err instanceof AgentsFileError)) throw err;
      for (const problem of err.problems)
        report(`api.${problem.replace(/ \(id '[^']*'\)/, "").split(":")[0]}`, problem.slice(problem.indexOf(":") + 2));
      return;
    }
    // The pods get no environment variables beyond the ones the program sets: an agent naming
    // another would crash every pod at start.
    const instead: Record<string, string> = {
      base_url_env: "set 'base_url' itself",
      api_key_env: "deployed agents use the upstream key the stack gives (api.llm.apiKey, or the LLM proxy's)",
    };
    (s.api.agents as Array<Record<string, unknown>>).forEach((agent, i) => {
      for (const [field, fix] of Object.entries(instead)) {
        if (agent[field] !== undefined)
          report(
            `api.agents[${i}].${field}`,
            `the deployed pods have no variable '${typeof agent[field] === "string" ? agent[field] : JSON.stringify(agent[field])}': ${fix}`,
          );
      }
    });
  }),
  rule(["api"], (s, report) => {
    // As the service refuses a key's budget above its project's, the defaults must agree.
    const { key, project } = s.api.budgets ?? {};
    if (key && project && key.limitUsd > project.limitUsd)
      report(
        "api.budgets.key.limitUsd",
        `must be at most api.budgets.project.limitUsd (${project.limitUsd}): a key's budget may not exceed its project's`,
      );
  }),
  rule(["api", "ingress"], (s, report) => {
    // The platform serves TLS from Ingress secrets in its own namespace: the API's Ingress (in
    // another namespace, for another host) needs a certificate of its own.
    const issuer = Object.keys(s.ingress.annotations ?? {}).some((k) => k.startsWith("cert-manager.io/"));
    if (s.ingress.tls.length > 0 && !issuer && s.api.tls.length === 0) {
      report(
        "api.tls",
        "the platform's TLS secrets live in its namespace and name its hosts: give the API host a secret in the API namespace, or use a cert-manager issuer on ingress.annotations",
      );
    } else if (s.api.tlsSourceNamespace && !(s.api.tls as Array<{ secretName?: string }>).some((t) => t.secretName)) {
      report(
        "api.tlsSourceNamespace",
        "names where api.tls's Secrets are copied from: list them in api.tls (secretName and hosts)",
      );
    }
    if (s.api.tlsSourceNamespace === s.api.namespace)
      report("api.tlsSourceNamespace", "must differ from api.namespace (the Secrets are copied into it)");
  }),
  rule(["api", "cloud"], (s, report) => {
    const { image, build, registry } = s.api;
    if (!image && !build) report("api.image", "set api.image (a pinned image) or api.build (build and push one)");
    if (image && build) report("api.build", "set either api.image or api.build, not both");
    // What is deployed must not change under the same reference: a digest, or a release tag.
    if (image && !PINNED_IMAGE.test(image)) {
      report(
        "api.image",
        `'${image}' can move under the same name: pin it by digest (repo@sha256:…) or a release tag (repo:1.2.3)`,
      );
    }
    if (build && !registry && s.cloud.provider !== "aws")
      report("api.registry", "api.build pushes to an ECR repository on AWS only; elsewhere name the registry here");
    if (registry && !registry.username !== !registry.password)
      report("api.registry", "set both username and password, or neither");
    // Whoever reads the pods' pull secret must not be able to push to the registry production runs from.
    if (build && registry?.username && !registry.pull) {
      report(
        "api.registry.pull",
        "the pods must not pull with the push credentials: give pull-only ones (ACR: a token whose scope map has only content/read)",
      );
    }
    if (registry?.pull && registry.pull.username === registry.username && build)
      report("api.registry.pull", "must be other credentials than the push ones");
  }),
  rule(["api", "ingress", "gateway"], (s, report) => {
    const readMs = Number(s.ingress.annotations["read-timeout"]);
    const heartbeat = heartbeatProblem(readMs, s.api.heartbeatSeconds);
    if (heartbeat) report("api.heartbeatSeconds", heartbeat);
    if (readMs < MIN_READ_TIMEOUT_MS)
      report(
        "ingress.annotations.read-timeout",
        `must be at least ${MIN_READ_TIMEOUT_MS} ms so a heartbeat fits below it`,
      );
    const max = parseBytes(s.gateway.env.client_max_body_size) ?? 0;
    const file = parseBytes(s.api.fileMaxBytes) ?? 0;
    const json = parseBytes(s.api.jsonBodyLimit ?? s.gateway.env.client_body_buffer_size) ?? 0;
    if (max > 0 && file + 1024 ** 2 > max) {
      report(
        "gateway.env.client_max_body_size",
        "must exceed api.fileMaxBytes by at least 1m (multipart framing) or uploads at the limit get 413 from the gateway",
      );
    }
    if (max > 0 && json > max) report("api.jsonBodyLimit", "must not exceed gateway.env.client_max_body_size");
  }),
];
