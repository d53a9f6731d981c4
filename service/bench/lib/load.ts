/** autocannon against one target, reduced to the figures the tables print. */
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  seconds: number;
  connections: number;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as they answer. */
  rate?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx responses and socket errors: a run with any is not a valid figure. */
  failures: number;
  /** Responses completed. */
  requests: number;
}

export async function load(opts: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? "POST",
    headers: opts.headers,
    body: opts.body,
    duration: opts.seconds,
    connections: opts.connections,
    pipelining: 1,
    ...(opts.rate !== undefined && { overallRate: opts.rate }),
    // Long enough for any stream here; autocannon's timeout is not reset by body chunks.
    timeout: 30,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
    requests: result.requests.total,
  };
}
