/**
 * Keys of this program rather than of the chart: where to deploy (cloud, network), the
 * release of the vendor chart, how each data service is provided, and our API service.
 */
import { z } from "zod";
import { DEFAULT_FILE_MAX_BYTES } from "../constants.js";
import { DOCDB_CA_FILE } from "../platform/postrender/docdb-ca.js";
import { PERIOD_SYNTAX, parsePeriod } from "../../service/src/domain/spend/budget-period.js";
import { MAX_BUDGET_USD } from "../../service/src/domain/spend/budget-fields.js";
import {
  bool,
  bytes,
  cidr,
  count,
  list,
  oneOf,
  origin,
  port,
  positiveInt,
  record,
  resources,
  str,
  text,
  url,
} from "./fields.js";

/** An Azure Database for PostgreSQL flexible server's name, as Azure takes it. */
const azurePostgresName = () =>
  z
    .string()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/,
      "must be a flexible server's name: 3–63 lowercase letters, digits and hyphens",
    );

/** A default budget (the service's BUDGET_KEY_* / BUDGET_PROJECT_*): USD per period, as the service reads them. */
const budget = () =>
  z.strictObject({
    limitUsd: z
      .number()
      .positive("must be above 0")
      .max(MAX_BUDGET_USD, `must be at most ${MAX_BUDGET_USD}`)
      .refine(
        (n) => Math.round(n * 1e6) === n * 1e6 || Math.abs(Math.round(n * 1e6) - n * 1e6) < 1e-6,
        "must be exact to the micro-dollar (at most 6 decimals)",
      ),
    period: z
      .string()
      .refine((p) => parsePeriod(p) !== undefined, `must be ${PERIOD_SYNTAX}`)
      .default("1mo"),
  });

/** A per-key limit: the service refuses more than a key's limit column stores (2^31 - 1) at start, so the stack does too. */
const rateLimit = () =>
  positiveInt()
    .pipe(z.number().max(2 ** 31 - 1, "must be at most 2147483647"))
    .optional();

export const cloud = z
  .strictObject({
    provider: oneOf(["none", "aws", "azure"]).default("none"),
    aws: z
      .strictObject({
        region: text().default("ap-northeast-1"),
        /** The cluster's VPC; managed services get private subnets in it. */
        vpcId: text().optional(),
        /** Private subnets (two or more, in different zones). */
        subnetIds: z.array(text()).default([]),
        /** Security groups of the cluster nodes: the only sources allowed to reach data services. */
        clientSecurityGroupIds: z.array(text()).default([]),
        /** Private CIDR blocks also allowed (the pod network, for example). */
        clientCidrs: z.array(cidr()).default([]),
        /**
         * The EKS cluster's IAM OIDC provider: the API reaches S3 with a role of its own through
         * IRSA (a projected token, no static key) instead of the key the chart uses.
         */
        irsa: z.strictObject({ oidcProviderArn: text(), oidcIssuer: text() }).optional(),
        tags: z.record(z.string(), z.string()).default({}),
      })
      .prefault({}),
    azure: z
      .strictObject({
        location: text().default("japaneast"),
        /** Created by this program. */
        resourceGroupName: str().optional(),
        /** Subnet for private endpoints (cache, docdb, storage). */
        subnetId: str().optional(),
        /** Subnet delegated to PostgreSQL flexible servers. */
        postgresSubnetId: str().optional(),
        /** Private DNS zone `*.postgres.database.azure.com` linked to the VNet. */
        postgresPrivateDnsZoneId: str().optional(),
        /**
         * Private DNS zones for the private endpoints (`privatelink.redis.cache.windows.net`,
         * `privatelink.mongo.cosmos.azure.com`), by resource id, where the organization keeps them
         * centrally. Unset: the program creates each zone and links it to the endpoints' VNet.
         */
        privateDnsZoneIds: z.strictObject({ redis: str().optional(), mongo: str().optional() }).prefault({}),
        /**
         * A CanNotDelete lock on the resource group (prod): Azure then refuses to delete it or
         * anything in it — by hand, by another tool, or by a `pulumi destroy` — until the lock is
         * removed on purpose.
         */
        deleteLock: bool().default(false),
        tags: z.record(z.string(), z.string()).default({}),
      })
      .prefault({}),
  })
  .prefault({});

/** The release's components that keep data in its own volumes (a StatefulSet with claims). */
export const STATEFUL_COMPONENTS = ["sqldb", "cache", "docdb", "mq", "vectordb", "objstore", "monitoring"] as const;

export const platform = z.strictObject({
  /**
   * Where the vendor chart comes from: a Helm repository (https://…) or an OCI registry
   * (oci://host/path, the chart appended). An OCI registry needs `helm registry login` on the
   * machine running `pulumi up`: the provider does not log in from chart credentials.
   */
  repository: z.string().regex(/^(https?|oci):\/\/[^\s]+$/, "must be an http(s):// or oci:// URL"),
  /** Credentials of the chart repository (never the image registry's). */
  chartCredentials: z.strictObject({ username: text(), password: text() }).optional(),
  chart: text(),
  version: text(),
  releaseName: text().default("platform"),
  namespace: text().default("platform"),
  /** Seconds per Helm operation. */
  timeoutSeconds: positiveInt().default(1800),
  /** Roll back a failed upgrade (and clean up what it created) instead of leaving it half-applied; set in the prod stacks. */
  atomic: bool().default(false),
  /**
   * What the deployed stack holds that a stack-file edit must not drop or change silently (set it
   * after the first `up`, and keep it in step; rules-lifecycle.ts): the release's PVC-backed
   * components, and the settings a provider takes only at creation. Unset: a stack without state.
   */
  state: z
    .strictObject({
      inCluster: z.array(oneOf(STATEFUL_COMPONENTS)).default([]),
      mqDeploymentMode: oneOf(["SINGLE_INSTANCE", "CLUSTER_MULTI_AZ"]).optional(),
      postgresGeoRedundantBackup: bool().optional(),
      docdbInstances: positiveInt().optional(),
      /**
       * Azure: the deployed PostgreSQL servers' names (`az postgres flexible-server list -g <group>
       * --query "[].name"`), so each `up` reads the disk size autoGrow reached and never sends a smaller one.
       */
      postgresServers: z
        .strictObject({ sqldb: azurePostgresName().optional(), vectordb: azurePostgresName().optional() })
        .optional(),
    })
    .optional(),
  /** Changes against `state` the operator has prepared for (a dump taken, a new server restored). */
  acknowledge: z.array(oneOf([...STATEFUL_COMPONENTS, "docdbInstances"])).default([]),
});

const mode = () => oneOf(["inCluster", "managed", "external"]).default("inCluster");

export const data = z
  .strictObject({
    sqldb: mode(),
    cache: mode(),
    docdb: mode(),
    mq: mode(),
    vectordb: mode(),
    /** Sizes of the managed services. */
    aws: z
      .strictObject({
        postgresVersion: text().default("16"),
        postgresInstanceClass: text().default("db.t4g.medium"),
        postgresStorageGb: positiveInt().default(50),
        vectorInstanceClass: text().default("db.t4g.medium"),
        vectorStorageGb: positiveInt().default(100),
        cacheNodeType: text().default("cache.t4g.small"),
        docdbInstanceClass: text().default("db.t4g.medium"),
        docdbInstances: positiveInt().default(1),
        /**
         * Formerly where a hand-patched pod had the Amazon RDS CA. The release now mounts it itself
         * (a Helm post-renderer) at DOCDB_CA_FILE; the key is accepted only with that value.
         */
        docdbTlsCaFile: z
          .literal(DOCDB_CA_FILE, {
            error: `the release mounts the Amazon RDS CA at ${DOCDB_CA_FILE} itself (a Helm post-renderer): remove this key`,
          })
          .optional(),
        mqInstanceType: text().default("mq.m5.large"),
        mqEngineVersion: text().default("3.13"),
        multiAz: bool().default(false),
        deletionProtection: bool().default(true),
        /**
         * Apply a resize or version change to RDS, ElastiCache, DocumentDB and Amazon MQ now (with the
         * restart it may need) rather than in the next maintenance window, while the state says done.
         */
        applyImmediately: bool().default(false),
        /** Let a `postgresVersion` (RDS) or DocumentDB engine change cross a major version. */
        allowMajorVersionUpgrade: bool().default(false),
        /** Days ElastiCache keeps its daily snapshots (0 turns them off; at most 35). */
        cacheSnapshotRetentionDays: count()
          .pipe(z.number().max(35, "must be at most 35 (ElastiCache's limit)"))
          .default(7),
      })
      .prefault({}),
    azure: z
      .strictObject({
        postgresVersion: text().default("16"),
        postgresSku: text().default("Standard_D2ds_v5"),
        postgresTier: oneOf(["Burstable", "GeneralPurpose", "MemoryOptimized"]).default("GeneralPurpose"),
        postgresStorageGb: positiveInt().default(64),
        /** A standby in another zone (ZoneRedundant), the same zone, or none; not on Burstable. */
        postgresHighAvailability: oneOf(["Disabled", "SameZone", "ZoneRedundant"]).default("Disabled"),
        /** Backups copied to the paired region; Azure takes this only when a server is created. */
        postgresGeoRedundantBackup: bool().default(false),
        /** Days of point-in-time restore (Azure's range: 7–35). */
        postgresBackupRetentionDays: positiveInt()
          .pipe(z.number().min(7, "must be between 7 and 35").max(35, "must be between 7 and 35"))
          .default(7),
        redisSku: oneOf(["Basic", "Standard", "Premium"]).default("Standard"),
        redisCapacity: z.number().int().min(0).max(6).default(1),
        cosmosServerVersion: text().default("6.0"),
        /** Cosmos DB continuous backup (point-in-time restore, 30 days); set in prod. One-way: Azure cannot go back to periodic. */
        cosmosContinuousBackup: bool().default(false),
        /**
         * The Redis access key and Cosmos DB's primary MongoDB connection string, given as `secure:`
         * config: the program then lists no keys (a preview needs no list action). With
         * storage.secret.clouda.STORAGE_ACCESS_KEY, all three or none.
         */
        redisAccessKey: text().optional(),
        cosmosConnectionString: text().optional(),
      })
      .prefault({}),
  })
  .prefault({});

export const api = z.strictObject({
  /**
   * A prebuilt image of the API service, pinned: `repo@sha256:<digest>` or `repo:X.Y.Z` (a release
   * tag). Either this or `build`.
   */
  image: str().optional(),
  /**
   * Build the image from this repository's Dockerfile and push it (`pulumi up` needs Docker with
   * buildx): to an ECR repository the stack creates on AWS, or to `registry`. The Deployment then
   * runs the pushed digest.
   */
  build: z
    .strictObject({
      context: text().default("."),
      dockerfile: text().default("Dockerfile"),
      /** Default `["linux/amd64"]`; on the `local` stack, the host's own (linux/arm64 on an arm64 machine). */
      platforms: z.array(oneOf(["linux/amd64", "linux/arm64"])).optional(),
      /** The tag pushed with the digest (the Deployment pins the digest, not this). */
      tag: text().default("latest-build"),
      /**
       * AWS: the ECR repository's name (default `agentport/<stack>/api`, one per stack). A stack
       * that already created `agentport/api` sets that here to keep it: the repository is
       * protected, and a rename would replace it.
       */
      ecrRepository: text().optional(),
    })
    .optional(),
  /**
   * A private registry of the stack's (ACR, Harbor, a local registry, …): `build` pushes there
   * with `username`/`password`, and the pods pull with `pull` (an imagePullSecret) — never with the
   * push credentials. With a pinned `image`, `username`/`password` are the pull credentials.
   * Neither is needed for a registry the nodes read without credentials, nor for ECR on AWS (the
   * nodes pull with their role).
   */
  registry: z
    .strictObject({
      /** Registry host, e.g. myacr.azurecr.io. */
      server: text(),
      /** Repository in it. */
      repository: text().default("agentport"),
      username: text().optional(),
      password: text().optional(),
      /** Pull-only credentials for the pods (ACR: a token whose scope map has only content/read). */
      pull: z.strictObject({ username: text(), password: text() }).optional(),
    })
    .optional(),
  namespace: text().default("agentport"),
  /** Public host; defaults to `api.<ingress.domainName>`. */
  host: str().optional(),
  replicas: positiveInt().default(2),
  maxReplicas: positiveInt().default(6),
  targetCpuPercent: positiveInt().default(70),
  resources: resources().default({
    requests: { cpu: "250m", memory: "256Mi" },
    limits: { cpu: "1000m", memory: "1Gi" },
  }),
  port: port().default(8080),
  modelPrefix: text().default("agentport"),
  /** Path of an agents file inside the image; prefer `agents`. */
  agentsFile: str().optional(),
  /** Agents declared inline (the service's agents-file schema); shipped to the pods as a ConfigMap. */
  agents: list().optional(),
  /** Upstream for llm agents; defaults to the platform's LLM proxy with its master key. */
  llm: z.strictObject({ baseUrl: url().optional(), apiKey: text().optional() }).prefault({}),
  /** Below the gateway read timeout; derived from it when not set. */
  heartbeatSeconds: positiveInt().optional(),
  /**
   * Redis the replicas share rate-limit counts through (REDIS_URL; `rediss://` for TLS). Derived
   * from a managed or external cache when unset; the in-cluster cache's service name is the
   * chart's, so set it here to use that one. Without any, each pod limits on its own.
   */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, "must be a redis:// or rediss:// URL")
    .optional(),
  /** Requests per minute per API key, and the ceiling of a key's own (RATE_LIMIT_RPM); unset: unlimited. */
  rateLimitRpm: rateLimit(),
  /** Tokens per minute per API key, and the ceiling of a key's own (RATE_LIMIT_TPM); unset: unlimited. */
  rateLimitTpm: rateLimit(),
  /**
   * Budgets by default: each new key's (BUDGET_KEY_USD/_PERIOD), each project's without one of its
   * own (BUDGET_PROJECT_USD/_PERIOD), and where 80%/100% alerts are posted (BUDGET_WEBHOOK_URL).
   */
  budgets: z
    .strictObject({ key: budget().optional(), project: budget().optional(), webhookUrl: url().optional() })
    .optional(),
  /** Days stored responses are kept (RESPONSES_RETENTION_DAYS, 0 forever); unset: the service's default, 30. Bounded as the service bounds it at start. */
  responsesRetentionDays: count().pipe(z.number().max(36_500, "must be at most 36500")).optional(),
  /** Browser origins allowed to call the API and MCP from other sites (CORS_ORIGINS); none by default. */
  corsOrigins: z.array(origin()).default([]),
  /**
   * Managed sqldb: raise by one to rotate the API's database password without a failed request
   * (infra/api/db-logins.ts): the login no pod uses gets a new password, then the pods roll onto it.
   */
  dbPasswordGeneration: count().default(0),
  shutdownGraceSeconds: positiveInt().default(30),
  /** Defaults to the gateway's client_body_buffer_size. */
  jsonBodyLimit: bytes().optional(),
  fileMaxBytes: bytes().default(DEFAULT_FILE_MAX_BYTES),
  /**
   * Service-level objectives the load test gates a deploy on (`npm run loadtest -- --stack NAME`):
   * stream percentiles in ms, the p95 of other requests, the share of failed streams. Not deployed.
   */
  slo: z
    .strictObject({
      ttftP95Ms: positiveInt().optional(),
      itlP95Ms: positiveInt().optional(),
      e2eP95Ms: positiveInt().optional(),
      requestP95Ms: positiveInt().optional(),
      maxErrorRate: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").optional(),
    })
    .optional(),
  logLevel: oneOf(["trace", "debug", "info", "warn", "error", "fatal"]).default("info"),
  /** Ingress class and annotation prefix of the gateway in front of the service. */
  ingressClassName: text().default("gateway"),
  annotationPrefix: text().default("konghq.com"),
  tls: list().default([]),
  /**
   * The namespace each `tls` Secret is copied from on every `preview`/`up` (where a corporate
   * certificate is kept, e.g. the platform's); unset: the Secrets must exist in `namespace`.
   */
  tlsSourceNamespace: text().optional(),
  nodeSelector: record().default({}),
  tolerations: list().default([]),
});
