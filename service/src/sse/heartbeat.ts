/**
 * SSE heartbeats: a comment line every few seconds of silence, so no idle timeout on the way (the
 * gateway's read timeout, a load balancer's) closes a stream while an agent thinks. The one
 * default for the service, the stack's derived limits and the load test.
 */
export const HEARTBEAT_COMMENT = ": keep-alive\n\n";

/** HEARTBEAT_SECONDS when unset, and the most the stack derives from a longer read timeout. */
export const DEFAULT_HEARTBEAT_SECONDS = 15;
