/**
 * The service's tracer. Until `startTracing` ran it is undefined and every call site takes its
 * plain path: tracing off costs one check, and the SDK is never loaded (dynamic import).
 */
import type { Tracer } from "@opentelemetry/api";
import type { TracingConfig } from "./tracing-config.js";
import type { TracingHandle } from "./tracing-handle.js";

let started: Promise<TracingHandle> | undefined;
/** Set once the SDK is registered; read on every traced call. */
export let tracer: Tracer | undefined;

/** Loads and registers the SDK once per process (the global tracer provider can be set only once). */
export function startTracing(config: TracingConfig): Promise<TracingHandle> {
  started ??= import("./sdk.js").then((sdk) => {
    const handle = sdk.registerSdk(config);
    tracer = handle.tracer;
    return handle;
  });
  return started;
}
