/**
 * The OpenTelemetry SDK, imported only when tracing is on: a Node tracer provider (async-local
 * context, W3C trace context propagation), a batching processor, and the OTLP/HTTP exporter for
 * the configured protocol. The sampler and the exporter's headers and timeout come from the
 * standard OTEL_* variables, which the SDK reads itself (config/tracing.ts has checked them).
 */
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "./tracing-config.js";
import { SERVICE_VERSION } from "../version.js";
import type { TracingHandle } from "./tracing-handle.js";

function exporterFor(config: TracingConfig): SpanExporter {
  return config.protocol === "http/json"
    ? new JsonExporter({ url: config.tracesUrl })
    : new ProtobufExporter({ url: config.tracesUrl });
}

export function registerSdk(config: TracingConfig): TracingHandle {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: "agentport", [ATTR_SERVICE_VERSION]: SERVICE_VERSION }))
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win over our defaults, as everywhere else.
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporterFor(config))] });
  // traceparent and tracestate only: a caller's baggage is its own data, never forwarded upstream.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return { tracer: provider.getTracer("agentport", SERVICE_VERSION), flush: () => provider.forceFlush() };
}
