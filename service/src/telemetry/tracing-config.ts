/** Where traces go, as the environment configures it (config/tracing.ts reads it). */
export interface TracingConfig {
  /** Where spans are sent: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string;
  protocol: "http/protobuf" | "http/json";
}
