/** Registry, images, JWT, credentials, audit logs and LLM providers (reference: same sections). */
import { z } from "zod";
import { bool, email, oneOf, str, text } from "./fields.js";

export const registryCredentials = z
  .strictObject({
    /** Not needed with cluster-native registry auth or a pre-configured pull secret. */
    enabled: bool().default(true),
    server: str().optional(),
    username: str().optional(),
    password: str().optional(),
    email: email().optional(),
  })
  .prefault({});

/** Image overrides; repositories and tags are not to be changed by users, so only pull settings. */
export const image = z
  .strictObject({
    /** The chart's fixed pull secret name (hidden by the reference) unless set. */
    imagePullSecrets: text().optional(),
    pullPolicy: oneOf(["IfNotPresent", "Always", "Never"]).default("IfNotPresent"),
  })
  .prefault({});

export const jwt = z
  .strictObject({
    /** Overrides the generated 64-character secret (set with `pulumi config set --secret`). */
    secret: text().optional(),
    /** A fixed self-hosted string the reference hides: the chart's own unless set. */
    key: text().optional(),
    algorithm: oneOf(["HS256", "HS384", "HS512"]).default("HS512"),
  })
  .prefault({});

const translator = z
  .strictObject({
    translator_service: oneOf(["cloudb_translate", "clouda"]).default("cloudb_translate"),
    clouda: z
      .strictObject({
        TRANSLATOR_TEXT_KEY: str().optional(),
        TRANSLATOR_TEXT_ENDPOINT: str().optional(),
        TRANSLATOR_TEXT_LOCATION: str().optional(),
      })
      .prefault({}),
    cloudb: z.strictObject({ ACCESS_KEY_ID: str().optional(), SECRET_ACCESS_KEY: str().optional() }).prefault({}),
  })
  .prefault({});

/** Instance keys: SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_<n>_<MODEL>. */
export const BOOST_INSTANCE_KEY = /^SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_(\d+)_([A-Z0-9_]+)$/;
export const BOOST_INSTANCE_MODELS = [
  "ADA",
  "4O",
  "4O_MINI",
  "41",
  "41_MINI",
  "41_NANO",
  "O1",
  "O3",
  "O3_MINI",
  "O4_MINI",
] as const;

const boost = z
  .looseObject({
    /** Generated (32) unless set. */
    SERVICE_BOOST_API_KEY_MAIN: text().optional(),
    /** Always the graphql admin secret; set only one of them. */
    SERVICE_BOOST_AUTO_API_KEY: text().optional(),
    SERVICE_BOOST_LLMPROXY_KEY: text().optional(),
    SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN: str().optional(),
  })
  .prefault({});

const gitHost = () =>
  z
    .strictObject({ app_name: str().optional(), client_id: str().optional(), client_secret: str().optional() })
    .optional();

export const credentials = z
  .strictObject({
    /** A git host integration, off unless given; given, all three fields are Required. */
    githost_a: gitHost(),
    /** The second git host integration, with the same fields as githost_a. */
    githost_b: gitHost(),
    /** Design-tool integration, off unless given: the reference names no keys, so each is rendered as given. */
    design: z.record(z.string(), z.string()).optional(),
    git_webhook_secret: str().optional(),
    translator,
    errortracker: z
      .strictObject({
        post_server_item_access_token: str().nullable().default(null),
        post_client_item_access_token: str().nullable().default(null),
      })
      .prefault({}),
    graphql: z.strictObject({ GRAPHQL_ADMIN_SECRET: text().optional() }).prefault({}),
    boost,
    localllm: z.strictObject({ HUB_TOKEN: str().optional() }).prefault({}),
    html_conversion: z.strictObject({ BEARER_TOKEN: text().optional() }).prefault({}),
  })
  .prefault({});

const auditOutput = (enabled: boolean) =>
  z.strictObject({ enabled: bool().default(enabled), env: z.record(z.string(), z.string()).default({}) }).prefault({});

/** Env keys each audit output needs when it is enabled. */
export const AUDIT_OUTPUT_KEYS = {
  clouda_dataexplorer: [
    "TENANT_ID",
    "INGESTION_ENDPOINT",
    "TABLE",
    "MAPPING_REFERENCE",
    "DATABASE_NAME",
    "CLIENT_ID",
    "CLIENT_SECRET",
  ],
  clouda_blob: ["STORAGE_ACCOUNT_NAME", "BLOB_KEY", "CONTAINER"],
  cloudb_s3: ["REGION", "BUCKET", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"],
} as const;

export const auditLogs = z
  .strictObject({
    enabled: bool().default(false),
    outputs: z
      .strictObject({
        clouda_dataexplorer: auditOutput(false),
        clouda_blob: auditOutput(false),
        cloudb_s3: auditOutput(true),
      })
      .prefault({}),
  })
  .prefault({});

const jsonList = () => str().optional();

/**
 * Every key of each provider group (reference: LLM providers), and which hold JSON lists. All are
 * rendered, set or empty, so no package placeholder of a provider the stack does not use survives.
 */
export const LLM_PROVIDER_KEYS = {
  direct: ["API_KEYS", "API_KEY", "VISION_KEY", "EMBEDDING_KEY", "MAIN_MODEL_NAME"],
  clouda: [
    "KEY",
    "INSTANCE_NAME",
    "KEYS",
    "INSTANCE_NAMES",
    "VERSION",
    "GLOBAL_KEYS",
    "GLOBAL_INSTANCE_NAMES",
    "GLOBAL_VERSION",
  ],
  managed: [
    "CONVERSE_REGION",
    "CONVERSE_GLOBAL_REGION",
    "CONVERSE_ACCESS_KEY_ID",
    "CONVERSE_SECRET_ACCESS_KEY",
    "CONVERSE_GLOBAL_ACCESS_KEY_ID",
    "CONVERSE_GLOBAL_SECRET_ACCESS_KEY",
  ],
  providerb: ["API_KEY"],
  providerc: ["GENERATIVE_API_KEY"],
} as const;
export const LLM_JSON_LISTS = ["API_KEYS", "KEYS", "INSTANCE_NAMES", "GLOBAL_KEYS", "GLOBAL_INSTANCE_NAMES"] as const;

export const llm = z
  .strictObject({
    AI_MODE: oneOf(["direct", "clouda"]).default("direct"),
    secretKeys: z
      .strictObject({
        direct: z
          .strictObject({
            API_KEYS: jsonList(),
            API_KEY: str().optional(),
            VISION_KEY: str().optional(),
            EMBEDDING_KEY: str().optional(),
            MAIN_MODEL_NAME: str().optional(),
          })
          .prefault({}),
        clouda: z
          .strictObject({
            KEY: str().optional(),
            INSTANCE_NAME: str().optional(),
            KEYS: jsonList(),
            INSTANCE_NAMES: jsonList(),
            VERSION: text().default("2024-10-21"),
            GLOBAL_KEYS: jsonList(),
            GLOBAL_INSTANCE_NAMES: jsonList(),
            GLOBAL_VERSION: text().default("2024-12-01-preview"),
          })
          .prefault({}),
        managed: z
          .strictObject({
            CONVERSE_REGION: text().default("ap-northeast-1"),
            CONVERSE_GLOBAL_REGION: text().default("us-east-1"),
            CONVERSE_ACCESS_KEY_ID: str().optional(),
            CONVERSE_SECRET_ACCESS_KEY: str().optional(),
            CONVERSE_GLOBAL_ACCESS_KEY_ID: str().optional(),
            CONVERSE_GLOBAL_SECRET_ACCESS_KEY: str().optional(),
          })
          .prefault({}),
        providerb: z.strictObject({ API_KEY: str().optional() }).prefault({}),
        providerc: z.strictObject({ GENERATIVE_API_KEY: str().optional() }).prefault({}),
      })
      .prefault({}),
    /**
     * Deployment names of the clouda mode. The reference gives names and defaults but no
     * parameter path: rendered only when the stack sets them, the chart's own otherwise.
     */
    deployments: z.record(z.string(), text()).optional(),
  })
  .prefault({});
