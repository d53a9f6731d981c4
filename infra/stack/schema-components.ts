/** Application components and their env values (reference: Components, Component environment values, Limits). */
import { z } from "zod";
import { boolString, component, count, oneOf, positiveInt, str, text, url, wsUrl } from "./fields.js";

export const frontend = component(
  {},
  {
    REACT_APP_PROJECT_ENV: text().default("production"),
    REACT_APP_ERRORTRACKER_ENV: text().default("production"),
    /** Supplied by the vendor; `PLACEHOLDER_VALUE` must be replaced. */
    REACT_APP_CLIENT_ID: text().default("PLACEHOLDER_VALUE"),
    REACT_APP_CLIENT_SECRET: text().default("PLACEHOLDER_VALUE"),
    REACT_APP_CAPTCHA_SITE_KEY: text().default("PLACEHOLDER_VALUE"),
    ICON_FONT_REGISTRY_TOKEN: text().default("PLACEHOLDER_VALUE"),
    /** Defaults to wss://<ingress.domainName>/broadcast. */
    REACT_APP_BROADCASTER_WS_URL: wsUrl().optional(),
    /** The reference hides its public default: the chart's applies unless set. */
    REACT_APP_PLAYWRIGHT_TRACING_VIEWER_URL: url().optional(),
    /** Kept equal to automation.env.SECURED_SIGN_UP. */
    REACT_APP_SECURED_SIGN_UP: boolString().optional(),
  },
);

export const frontend_core = component({}, {});

export const swef = component(
  {},
  { CODEGEN_TOKEN: text().default("token"), VITE_ENABLE_SIMPLE_AUTH: boolString().default("false") },
);

const subService = () => component({}, {});

export const automation = component(
  {
    services: z
      .strictObject({
        web: subService(),
        jobs: subService(),
        "jobs-priority": subService(),
        rpc: subService(),
        identifier: component({ name: text().default("identifier") }, {}, false),
      })
      .prefault({}),
  },
  {
    TZ: text().default("Asia/Tokyo"),
    NODE_ENV: text().default("production"),
    RAILS_ENV: text().default("production"),
    /** Generated once and shared with ultron.secret (they must be equal). */
    PUBLIC_LLM_INTERNAL_SECRET: text().optional(),
    ENABLE_SELF_HOSTING: boolString().default("true"),
    SECURED_SIGN_UP: boolString().default("false"),
    OTEL_ENABLED: boolString().default("true"),
    ENABLE_PROXY_FROM_X_HEADER: boolString().default("false"),
    RAILS_MAX_THREADS: positiveInt().transform(String).default("15"),
    /** Monthly per-company quota; empty means unlimited. */
    DYNAMIC_DOCUMENT_GENERATION_LIMITATION: z.union([z.literal(""), count().transform(String)]).default(""),
  },
);

export const ultron = component(
  {
    secret: z
      .strictObject({
        PUBLIC_LLM_INTERNAL_SECRET: text().optional(),
        /** Generated RSA key unless set. */
        CLI_ZIPPER_PRIVATE_KEY: text().optional(),
      })
      .prefault({}),
    terminationGracePeriodSeconds: positiveInt().default(1800),
  },
  {
    ENV: oneOf(["production", "development", "staging"]).default("production"),
    APP_PUBLIC_PORT: positiveInt().default(3001),
    APP_PORT: positiveInt().default(3000),
    /** Follows storage.provider. */
    STORAGE_DISK: oneOf(["s3", "azure", "minio"]).optional(),
    VECTOR_SERVICE: oneOf(["pgvector"]).default("pgvector"),
    ENABLE_UI_SEPARATOR_TOOL: boolString().default("true"),
    ENABLE_DEVELOPER_AGENT_FOR_LARGE_FILE: boolString().default("true"),
    ENABLE_LEGACY_AGENT: boolString().default("true"),
    OTEL_ENABLED: boolString().default("true"),
    DELEGATE_MODE: str().default(""),
    MAXIMUM_CODE_DOCUMENT_LENGTH: positiveInt().default(2500),
    GENERIC_ERD_DOCUMENT_LIMIT: positiveInt().default(7),
    GENERIC_ERD_DOCUMENT_PER_RUN: positiveInt().default(7),
  },
);

export const document_converter = component(
  {},
  {
    ENVIRONMENT: text().default("production"),
    /** "A local address on port 8000" in the reference: the chart's own unless set. */
    LOCAL_SERVER: url().optional(),
    /** Follows storage.provider (true only for AzureStorage). */
    USE_CLOUDA: boolString().optional(),
    USE_BASE_64: boolString().default("true"),
  },
);

export const html_conversion = component({}, {});
export const html_conversion_worker = component({}, {});

export const localllm = component({}, { PORT: text().default("8000"), DO_NOT_TRACK: text().default("1") }, false);

/** `port` is not a parameter of the reference: rendered only when the stack sets it. */
export const llmproxy = component({ port: positiveInt().optional() }, {});

export const boost = component(
  {},
  {
    // The reference hides these defaults (`<auth module>`, `<workflow-resolver>`, an in-cluster
    // address, …): the chart's own apply unless the stack sets them.
    SERVICE_BOOST_MODEL_FILTER: text().optional(),
    SERVICE_BOOST_PROLOGUE_MODULES: text().optional(),
    SERVICE_BOOST_DEFAULT_WORKFLOW: text().optional(),
    SERVICE_BOOST_EPILOGUE_MODULES: text().optional(),
    /** Defaults to https://search.<ingress.domainName>. */
    SERVICE_BOOST_SEARCH_URL: url().optional(),
    SERVICE_BOOST_CONTEXT_SYSTEM_SERVICE_URL: url().optional(),
    SERVICE_BOOST_ERRORTRACKER_ENVIRONMENT: text().default("pilot"),
    OTEL_ENABLED: boolString().default("true"),
  },
);

export const browser = component({}, {});
