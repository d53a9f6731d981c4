/**
 * Pure settings of the API service: its env, the gateway annotations of its Ingress and its
 * database URL, all derived from the stack (and from the same limits the load test reads).
 */
import * as pulumi from "@pulumi/pulumi";
import { LLMPROXY_PORT } from "../constants.js";
import { limitsOf, type StackLimits } from "../limits.js";
import { serviceHost } from "../platform/values/defaults.js";
import type { PostgresEndpoint } from "../data/types.js";
import type { StackSpec } from "../stack/schema.js";
import { verifiedTlsQuery } from "./ca-bundle.js";

/** Seconds the pod keeps serving after removal from endpoints, before SIGTERM. */
export const PRE_STOP_SLEEP_SECONDS = 5;

export interface ServiceSettings {
  host: string;
  publicUrl: string;
  limits: StackLimits;
  /** Non-secret env of the container. */
  env: Record<string, string>;
  /**
   * Annotations the gateway reads from the API's Ingress (route level: buffering), and from its
   * Service (upstream level: timeouts). Kong reads its timeouts from the Service only — on the
   * Ingress they are ignored and Kong's 60 s default applies — and buffering from the route.
   * ingress-nginx reads everything from the Ingress; its annotations are written only for an
   * nginx class, since another controller ignores them.
   */
  ingressAnnotations: Record<string, string>;
  serviceAnnotations: Record<string, string>;
  /** Pod grace period: drain streams, plus the pre-stop sleep, plus slack. */
  terminationGracePeriodSeconds: number;
  /** The LLM upstream, or undefined when there is none. */
  llmBaseUrl?: string;
  /** The API Ingress's `tls`: the stack's, or the API host with a cert-manager certificate. */
  tls: Array<{ secretName?: string; hosts?: string[] }>;
}

const ISSUER_ANNOTATIONS = ["cert-manager.io/cluster-issuer", "cert-manager.io/issuer"];

/** The cert-manager issuer annotation the platform's Ingress uses, when it uses one. */
export function certManagerIssuer(spec: StackSpec): Record<string, string> {
  const annotations = (spec.ingress.annotations ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    ISSUER_ANNOTATIONS.filter((k) => typeof annotations[k] === "string").map((k) => [k, String(annotations[k])]),
  );
}

/** Where the ConfigMap of inline `api.agents` is mounted in the pods. */
export const AGENTS_DIR = "/etc/agentport";

export function serviceSettings(spec: StackSpec): ServiceSettings {
  const api = spec.api;
  const host = api.host || `api.${spec.ingress.domainName}`;
  const publicUrl = `https://${host}`;
  const limits = limitsOf(spec);
  const { releaseName: release, namespace } = spec.platform;
  const llmBaseUrl =
    api.llm.baseUrl ??
    (spec.llmproxy.enabled
      ? `http://${serviceHost(release, namespace, "llmproxy")}:${spec.llmproxy.port ?? LLMPROXY_PORT}/v1`
      : undefined);
  const prefix = api.annotationPrefix.replace(/\/$/, "");
  const maxBody = spec.gateway.env.client_max_body_size;
  return {
    host,
    publicUrl,
    limits,
    llmBaseUrl,
    env: {
      HOST: "0.0.0.0",
      PORT: String(api.port),
      PUBLIC_URL: publicUrl,
      JWT_ALGORITHM: spec.jwt.algorithm,
      MODEL_PREFIX: api.modelPrefix,
      // The sqldb is shared with the platform: the service keeps its tables in a schema of its own.
      DATABASE_SCHEMA: "agentport",
      ...(api.agents
        ? { AGENTS_FILE: `${AGENTS_DIR}/agents.json` }
        : api.agentsFile
          ? { AGENTS_FILE: api.agentsFile }
          : {}),
      ...(llmBaseUrl ? { LLM_BASE_URL: llmBaseUrl } : {}),
      // Below the gateway's idle read timeout by construction (limitsOf, the heartbeat rule).
      HEARTBEAT_SECONDS: String(limits.heartbeatSeconds),
      SHUTDOWN_GRACE_SECONDS: String(api.shutdownGraceSeconds),
      JSON_BODY_LIMIT: String(limits.jsonBodyLimitBytes),
      FILE_MAX_BYTES: String(limits.fileMaxBytes),
      LOG_LEVEL: api.logLevel,
      ...(api.corsOrigins.length ? { CORS_ORIGINS: api.corsOrigins.join(",") } : {}),
      ...(api.rateLimitRpm ? { RATE_LIMIT_RPM: String(api.rateLimitRpm) } : {}),
      ...(api.rateLimitTpm ? { RATE_LIMIT_TPM: String(api.rateLimitTpm) } : {}),
      ...budgetEnv(api.budgets),
      ...(api.responsesRetentionDays !== undefined
        ? { RESPONSES_RETENTION_DAYS: String(api.responsesRetentionDays) }
        : {}),
      DATA_DIR: "/tmp/agentport",
    },
    ...withIssuer(gatewayAnnotations(api.ingressClassName, prefix, limits, maxBody), certManagerIssuer(spec)),
    // A certificate for the API host: the stack's own, or one cert-manager issues when the
    // platform uses it (the platform's TLS secrets live in its namespace and name other hosts).
    tls: (api.tls as ServiceSettings["tls"]).length
      ? (api.tls as ServiceSettings["tls"])
      : Object.keys(certManagerIssuer(spec)).length
        ? [{ secretName: "agentport-api-tls", hosts: [host] }]
        : [],
    terminationGracePeriodSeconds: api.shutdownGraceSeconds + PRE_STOP_SLEEP_SECONDS + 5,
  };
}

function withIssuer(
  a: Pick<ServiceSettings, "ingressAnnotations" | "serviceAnnotations">,
  issuer: Record<string, string>,
) {
  return { ...a, ingressAnnotations: { ...a.ingressAnnotations, ...issuer } };
}

/** The gateway's annotations for the API, by where its controller reads them. */
function gatewayAnnotations(
  ingressClassName: string,
  prefix: string,
  limits: StackLimits,
  maxBody: unknown,
): Pick<ServiceSettings, "ingressAnnotations" | "serviceAnnotations"> {
  const seconds = (ms: number) => String(Math.ceil(ms / 1000));
  const timeouts = {
    [`${prefix}/connect-timeout`]: String(limits.connectTimeoutMs),
    [`${prefix}/read-timeout`]: String(limits.readTimeoutMs),
    [`${prefix}/write-timeout`]: String(limits.writeTimeoutMs),
  };
  const kong = prefix === "konghq.com";
  const nginx = /nginx/i.test(ingressClassName);
  return {
    serviceAnnotations: kong ? timeouts : {},
    ingressAnnotations: {
      ...(kong ? {} : nginx ? {} : timeouts),
      // Streams reach the client chunk by chunk and uploads stream through to the service.
      ...(kong ? { "konghq.com/request-buffering": "false", "konghq.com/response-buffering": "false" } : {}),
      ...(nginx
        ? {
            "nginx.ingress.kubernetes.io/proxy-connect-timeout": seconds(limits.connectTimeoutMs),
            "nginx.ingress.kubernetes.io/proxy-read-timeout": seconds(limits.readTimeoutMs),
            "nginx.ingress.kubernetes.io/proxy-send-timeout": seconds(limits.writeTimeoutMs),
            "nginx.ingress.kubernetes.io/proxy-body-size": String(maxBody),
            "nginx.ingress.kubernetes.io/client-body-buffer-size": limits.clientBodyBufferSize,
            "nginx.ingress.kubernetes.io/proxy-buffering": "off",
            "nginx.ingress.kubernetes.io/proxy-request-buffering": "off",
          }
        : {}),
    },
  };
}

/** The API pods' ServiceAccount (the one an IRSA role trusts). */
export const API_SERVICE_ACCOUNT = "agentport-api";

/** The API's own role on a managed sqldb (created by the provision Job), instead of the master user. */
export const API_DB_ROLE = "agentport_api";

/**
 * REDIS_URL of the service (a secret: it holds the cache's password): `api.redisUrl`, else the
 * managed cache the stack made (TLS, ElastiCache's auth token or Azure's key), else an external
 * cache; undefined for the in-cluster one, whose service name the chart owns.
 */
export function redisUrl(
  spec: StackSpec,
  managed?: {
    host: pulumi.Input<string>;
    port: pulumi.Input<number>;
    username: pulumi.Input<string>;
    password: pulumi.Input<string>;
  },
): pulumi.Output<string> | undefined {
  const url = (
    tls: boolean,
    user: pulumi.Input<string>,
    password: pulumi.Input<string>,
    host: pulumi.Input<string>,
    port: pulumi.Input<number>,
  ) =>
    pulumi.interpolate`${tls ? "rediss" : "redis"}://${pulumi.output(user).apply(encodeURIComponent)}:${pulumi.output(password).apply(encodeURIComponent)}@${host}:${port}`;
  if (spec.api.redisUrl) return pulumi.secret(spec.api.redisUrl);
  if (managed) return pulumi.secret(url(true, managed.username, managed.password, managed.host, managed.port));
  const e = spec.externalCache;
  if (spec.data.cache === "external" && e.host)
    return pulumi.secret(url(e.useTls, e.username ?? "default", e.password ?? "", e.host, e.port));
  return undefined;
}

/**
 * DATABASE_URL of the service: the platform's sqldb, wherever it runs. Always a secret. `as` names
 * the role to connect as (the API's own on a managed sqldb); the endpoint's user otherwise.
 */
export function databaseUrl(
  spec: StackSpec,
  sqldbPassword: pulumi.Input<string>,
  managed?: PostgresEndpoint,
  as?: { user: string; password: pulumi.Input<string> },
): pulumi.Output<string> {
  const url = (
    user: pulumi.Input<string>,
    password: pulumi.Input<string>,
    host: pulumi.Input<string>,
    port: pulumi.Input<string | number>,
    db: pulumi.Input<string>,
    query = "",
  ) =>
    pulumi.interpolate`postgresql://${pulumi.output(user).apply(encodeURIComponent)}:${pulumi.output(password).apply(encodeURIComponent)}@${host}:${port}/${db}${query}`;
  if (managed) {
    if (spec.cloud.provider === "none") throw new Error("a managed sqldb needs cloud.provider aws or azure");
    return pulumi.secret(
      url(
        as?.user ?? managed.username,
        as?.password ?? managed.password,
        managed.host,
        managed.port,
        managed.database,
        verifiedTlsQuery(spec.cloud.provider),
      ),
    );
  }
  if (spec.data.sqldb === "external") {
    const e = spec.externalSqldb;
    return pulumi.secret(url(e.username ?? "", e.password ?? "", e.host ?? "", e.port, e.dbName ?? ""));
  }
  const auth = spec.sqldb.global.sqldb.auth;
  const host = serviceHost(spec.platform.releaseName, spec.platform.namespace, "sqldb");
  return pulumi.secret(url(auth.username, sqldbPassword, host, 5432, auth.database));
}

/** The stack's default budgets and alert webhook as the service's variables (BUDGET_*). */
function budgetEnv(budgets: StackSpec["api"]["budgets"]): Record<string, string> {
  const env: Record<string, string> = {};
  if (budgets?.key)
    Object.assign(env, { BUDGET_KEY_USD: String(budgets.key.limitUsd), BUDGET_KEY_PERIOD: budgets.key.period });
  if (budgets?.project)
    Object.assign(env, {
      BUDGET_PROJECT_USD: String(budgets.project.limitUsd),
      BUDGET_PROJECT_PERIOD: budgets.project.period,
    });
  if (budgets?.webhookUrl) env.BUDGET_WEBHOOK_URL = budgets.webhookUrl;
  return env;
}
