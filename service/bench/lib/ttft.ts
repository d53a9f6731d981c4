/** Time to first content delta of a streamed chat completion, measured on the body's chunks. */
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";

export interface Target {
  url: string;
  headers: Record<string, string>;
  body: string;
}

// The first delta that carries text, in our chunks and in the upstream's alike.
const FIRST_CONTENT = /"delta":\{"content":"[^"]/;

async function once(target: Target, dispatcher: Agent): Promise<number> {
  const start = performance.now();
  const res = await request(target.url, { method: "POST", headers: target.headers, body: target.body, dispatcher });
  if (res.statusCode !== 200) throw new Error(`${target.url} answered ${res.statusCode}`);
  let seen = "";
  let ttft = NaN;
  for await (const chunk of res.body) {
    if (Number.isNaN(ttft)) {
      seen += chunk.toString();
      if (FIRST_CONTENT.test(seen)) ttft = performance.now() - start;
    }
  }
  return ttft;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Sequential requests, alternating between targets so drift hits all alike; sorted samples per target (ms). */
export async function ttft(targets: Target[], samples: number): Promise<number[][]> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const out = targets.map(() => [] as number[]);
  try {
    for (let i = 0; i < samples; i++) {
      for (let t = 0; t < targets.length; t++) out[t].push(await once(targets[t], dispatcher));
    }
  } finally {
    await dispatcher.close();
  }
  return out.map((s) => s.sort((a, b) => a - b));
}
