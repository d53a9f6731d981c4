/** What starting the tracing SDK hands back: its own module, so the SDK and the tracer need not import each other. */
import type { Tracer } from "@opentelemetry/api";

export interface TracingHandle {
  tracer: Tracer;
  /** Exports what has ended (at shutdown, and so tests see every span). */
  flush(): Promise<void>;
}
