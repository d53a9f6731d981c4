/** Data services, graphql, gateway and external services (reference: Data services, External services). */
import { z } from "zod";
import { DEFAULT_CLIENT_BODY_BUFFER_SIZE, DEFAULT_CLIENT_MAX_BODY_SIZE } from "../constants.js";
import { bareHost, bool, boolString, bytes, cidr, component, count, oneOf, port, str, text } from "./fields.js";

const pullPolicy = () => oneOf(["IfNotPresent", "Always", "Never"]).default("IfNotPresent");

export const sqldb = component(
  {
    global: z
      .strictObject({
        sqldb: z
          .strictObject({
            auth: z
              .strictObject({
                /** Superuser password; generated unless set. */
                postgresPassword: text().optional(),
                username: text().default("platform"),
                /** Generated unless set. */
                password: text().optional(),
                database: text().default("platform"),
              })
              .prefault({}),
          })
          .prefault({}),
      })
      .prefault({}),
    persistence: z.strictObject({ storageClassName: str().default(""), size: text().default("8Gi") }).prefault({}),
  },
  {},
);

export const cache = component(
  {
    architecture: oneOf(["standalone", "replication"]).default("standalone"),
    persistence: z.strictObject({ size: text().default("2Gi") }).prefault({}),
    auth: z
      .strictObject({ enabled: bool().default(false), sentinel: bool().default(false), password: str().optional() })
      .prefault({}),
    master: z
      .strictObject({
        service: z
          .strictObject({ ports: z.strictObject({ cache: port().transform(String).default("6379") }).prefault({}) })
          .prefault({}),
      })
      .prefault({}),
  },
  {},
);

export const docdb = component(
  {
    architecture: oneOf(["standalone", "replicaset"]).default("standalone"),
    global: z.strictObject({ storageClass: str().default("default") }).prefault({}),
    persistence: z.strictObject({ storageClass: str().default("default"), size: text().default("5Gi") }).prefault({}),
    useStatefulSet: bool().default(true),
    auth: z
      .strictObject({
        enabled: bool().default(true),
        databases: z.array(text()).default(["platform"]),
        usernames: z.array(text()).default(["platform"]),
        /** Generated unless set (one per user). */
        passwords: z.array(text()).optional(),
      })
      .prefault({}),
  },
  {},
);

export const mq = component(
  {
    auth: z
      .strictObject({
        tls: z.strictObject({ enabled: bool().default(false) }).prefault({}),
        username: text().default("admin"),
        password: text().optional(),
        erlangCookie: text().optional(),
      })
      .prefault({}),
    persistence: z.strictObject({ size: text().default("2Gi") }).prefault({}),
    /** The consumer timeout; long agent runs hold a message for a long time. */
    extraConfiguration: text().default("consumer_timeout = 31622400000"),
  },
  {},
);

export const graphql = component(
  {},
  {
    ENABLE_CONSOLE: boolString().default("false"),
    DEV_MODE: boolString().default("false"),
    ENABLED_LOG_TYPES: text().default("startup, http-log, webhook-log, websocket-log, query-log"),
  },
);

export const gateway = component(
  {
    ingressController: z.strictObject({ ingressClass: text().default("gateway") }).prefault({}),
    postgresql: z.strictObject({ enabled: bool().default(false) }).prefault({}),
    effectiveSemver: text().default("3.7"),
    pullPolicy: pullPolicy(),
    proxy: z
      .strictObject({
        annotations: z.record(z.string(), z.string()).default({}),
        /** Deprecated: filter IPs in the infrastructure layer instead. */
        loadBalancerSourceRanges: z.array(cidr()).default([]),
      })
      .prefault({}),
  },
  {
    /** A prefix path the reference hides: the chart's own unless set. */
    prefix: text().optional(),
    database: text().default("off"),
    plugins: text().default("bundled,jwt,acme"),
    real_ip_header: text().default("x-real-ip"),
    trusted_ips: text().default("0.0.0.0/0,::/0"),
    /** Not a limit: bodies above it are spilled to a temporary file. */
    client_body_buffer_size: bytes().default(DEFAULT_CLIENT_BODY_BUFFER_SIZE),
    /** The limit: larger bodies get 413 (0 = unlimited). Must fit the service's file limit. */
    client_max_body_size: bytes().default(DEFAULT_CLIENT_MAX_BODY_SIZE),
  },
);

export const vectordb = component(
  {
    postgresql: z
      .strictObject({
        username: text().default("vector"),
        /** Generated unless set. */
        password: text().optional(),
        database: text().default("vector"),
        port: port().default(5432),
      })
      .prefault({}),
    persistence: z
      .strictObject({
        enabled: bool().default(true),
        size: text().default("64Gi"),
        storageClassName: str().default(""),
      })
      .prefault({}),
    image: z.strictObject({ pullPolicy: pullPolicy() }).prefault({}),
    /**
     * The must-override list names the vector store's credentials `vectordb.sqldb.*`, the data
     * table `vectordb.postgresql.*` (with types and defaults): one set of credentials, kept at the
     * data table's path. Accepted here only so a stack using the other name is told where they go.
     */
    sqldb: z.unknown().optional(),
  },
  {},
);

/** `enabled` of the external* groups follows `data.<service>`; setting it differently is an error. */
export const externalSqldb = z
  .strictObject({
    enabled: bool().optional(),
    username: str().optional(),
    password: str().optional(),
    host: bareHost().optional(),
    dbName: str().optional(),
    port: port().transform(String).default("5432"),
    maxOpenConns: count().transform(String).default("20"),
    maxIdleConns: count().transform(String).default("5"),
  })
  .prefault({});

export const externalCache = z
  .strictObject({
    enabled: bool().optional(),
    host: bareHost().optional(),
    username: str().optional(),
    password: str().optional(),
    port: port().default(6379),
    useTls: bool().default(true),
  })
  .prefault({});

export const MONGODB_URI = /^mongodb(\+srv)?:\/\/[^\s]+$/;

export const externalDocdb = z
  .strictObject({
    enabled: bool().optional(),
    /** srv cluster, standalone, or replica set with the `replicaSet` query option. */
    mongodb_uri: str().optional(),
  })
  .prefault({});

export const externalVectordb = z
  .strictObject({
    enabled: bool().optional(),
    host: bareHost().optional(),
    username: str().optional(),
    password: str().optional(),
    database: str().optional(),
    port: port().transform(String).default("5432"),
    /** The only value the platform supports: it cannot enforce TLS to the vector store. */
    sslMode: z
      .literal("disable", { error: () => "must be disable (TLS enforcement is unsupported)" })
      .default("disable"),
  })
  .prefault({});

export const externalMq = z
  .strictObject({
    enabled: bool().optional(),
    host: bareHost().optional(),
    port: port().transform(String).default("5672"),
    username: str().optional(),
    password: str().optional(),
    useTls: bool().default(true),
  })
  .prefault({});
