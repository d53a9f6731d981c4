/** The measured stream of the streaming scenario and the sweep: the workload's prompt and length. */
import { streamChat, type StreamOutcome } from "./stream-client.js";
import type { RunContext } from "./types.js";
import { promptText } from "./workload.js";

export function workloadStream(ctx: RunContext, label: string): Promise<StreamOutcome> {
  const { target, budget } = ctx;
  return streamChat(ctx.http, {
    baseUrl: target.baseUrl,
    key: target.key,
    model: target.streamModel,
    content: budget.promptTokens ? promptText(budget.promptTokens) : label,
    maxTokens: budget.maxTokens,
    timeoutMs: Math.max(30_000, ctx.limits.readTimeoutMs * 2),
    expect: { model: target.streamModel, contentChunks: target.streamTokens },
  });
}

/** Streams that are not measured: connections opened, caches and JIT warm, before the clock runs. */
export async function warmUp(ctx: RunContext, count: number): Promise<void> {
  if (count <= 0) return;
  ctx.progress(`warm-up: ${count} unmeasured streams`);
  await Promise.all(Array.from({ length: count }, (_, i) => workloadStream(ctx, `warm-up ${i}`)));
}
