/**
 * Values more than one part of the repository must agree on: the program, the validator, the
 * load test and the k6 env read them from here, never from a copy.
 */

/** The gateway annotation naming the ACM certificate(s) of the AWS load balancer (TLS ends there). */
export const ACM_ANNOTATION = "service.beta.kubernetes.io/aws-load-balancer-ssl-cert";

/** Annotations of a certificate manager (cert-manager) start with this. */
export const CERT_MANAGER_PREFIX = "cert-manager.io/";

/** The gateway's connect/read/write idle timeouts when a stack sets none (reference: Limits), ms. */
export const DEFAULT_TIMEOUT_MS = 180_000;

/** The gateway's body buffer (reference: Limits); above it bodies are spilled to disk, not refused. */
export const DEFAULT_CLIENT_BODY_BUFFER_SIZE = "5120k";

/** The gateway's body limit: the service's file limit plus room for multipart framing. */
export const DEFAULT_CLIENT_MAX_BODY_SIZE = "520m";

/** The service's largest upload. */
export const DEFAULT_FILE_MAX_BYTES = "512m";

/** The LLM proxy's own listening port, what the chart runs when a stack sets no llmproxy.port. */
export const LLMPROXY_PORT = 4000;

/** The longest keep-alive interval on streams, whatever the read timeout: the service's own default. */
export { DEFAULT_HEARTBEAT_SECONDS as MAX_HEARTBEAT_SECONDS } from "../service/src/sse/heartbeat.js";

/** The reference's values the policy pack checks too live in the pack, which must install alone. */
export { CLOUDB_STORAGE_REGION, SUGGESTED_SECRET_LENGTHS } from "./policy/reference.js";

/** Labels of the API's objects and pods: the Deployment's selector, and what the metrics scrape keeps. */
export const API_LABELS = {
  "app.kubernetes.io/name": "agentport-api",
  "app.kubernetes.io/part-of": "agentport",
} as const;
