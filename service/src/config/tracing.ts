/** OpenTelemetry traces (the standard OTEL_* variables): on when an OTLP endpoint is set. */
import { z } from "zod";
import type { TracingConfig } from "../telemetry/tracing-config.js";
import { boolean, choice, int, read, url, type Env } from "./env-readers.js";

const OTEL_PROTOCOLS = ["http/protobuf", "http/json"] as const;
const OTEL_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];
/** `key=value` pairs separated by commas, as OTEL_EXPORTER_OTLP_HEADERS is written. */
const otlpHeaders = z.string().regex(/^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/);

/** The OTEL_* variables the SDK reads are checked here, so a bad one is refused at start like any other. */
export function tracingConfig(env: Env): TracingConfig | undefined {
  const base = url(env, "OTEL_EXPORTER_OTLP_ENDPOINT", ["http", "https"], true);
  const traces = url(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ["http", "https"], true);
  const fallback = choice(env, "OTEL_EXPORTER_OTLP_PROTOCOL", OTEL_PROTOCOLS, "http/protobuf");
  const protocol = choice(
    env,
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    OTEL_PROTOCOLS,
    fallback,
  ) as TracingConfig["protocol"];
  const exporter = choice(env, "OTEL_TRACES_EXPORTER", ["otlp", "none"], "otlp");
  choice(env, "OTEL_TRACES_SAMPLER", OTEL_SAMPLERS, "parentbased_always_on");
  read(
    env,
    "OTEL_TRACES_SAMPLER_ARG",
    z
      .string()
      .trim()
      .regex(/^\d*\.?\d+$/)
      .transform(Number)
      .pipe(z.number().max(1)),
    1,
    "a number from 0 to 1",
  );
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"])
    read(env, name, otlpHeaders, "", "a list of key=value pairs separated by commas", false);
  int(env, "OTEL_EXPORTER_OTLP_TIMEOUT", 10_000, 1);
  const disabled = boolean(env, "OTEL_SDK_DISABLED", false);
  if (disabled || exporter === "none" || !(base || traces)) return undefined;
  return { tracesUrl: traces ?? `${base!.replace(/\/+$/, "")}/v1/traces`, protocol };
}
