/**
 * The limiter's Redis windows with a client span per reserve and settle. Used only when tracing is
 * on. A settlement joins a batch written shortly after, so its span lasts until that write.
 */
import { SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { CreditWindows } from "./windows.js";
import { tracer as activeTracer } from "../../telemetry/tracer.js";

function traced<T>(tracer: Tracer, name: string, run: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { kind: SpanKind.CLIENT, attributes: { "db.system.name": "redis", "db.operation.name": "EVALSHA" } },
    (span) =>
      run().then(
        (value) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
          span.end();
          throw err;
        },
      ),
  );
}

/** `windows` itself when tracing is off. A reservation answered from a replica's credit makes no call, so no span. */
export function tracedWindows(windows: CreditWindows): CreditWindows {
  const tracer = activeTracer;
  if (!tracer) return windows;
  return {
    reserve: (key, limits, tokens, block, returned) =>
      traced(tracer, "redis limiter reserve", () => windows.reserve(key, limits, tokens, block, returned)),
    settle: (key, window, delta, requests) =>
      traced(tracer, "redis limiter settle", () => windows.settle(key, window, delta, requests)),
    reserveSpend: (key, limits, tokens, spend) =>
      traced(tracer, "redis limiter reserve", () => windows.reserveSpend(key, limits, tokens, spend)),
    settleSpend: (budget, start, cost) =>
      traced(tracer, "redis limiter settle", () => windows.settleSpend(budget, start, cost)),
    close: () => windows.close?.() ?? Promise.resolve(),
  };
}
