/**
 * Tokens in a stream, as GuideLLM and LLMPerf count them, from what the client sees: the
 * server's `usage.completion_tokens` for the total, spread over the content chunks.
 *
 * Inter-token latency is per token, not per chunk: a chunk that carries k tokens counts as k
 * gaps, each a k-th of the time since the previous content chunk. The first chunk's extra tokens
 * arrived with the first token: k-1 gaps of 0. So a stream of N tokens has N-1 gaps summing to
 * the time from its first to its last content chunk, and their mean is GuideLLM's
 * (last token − first token) / (N − 1).
 */

/**
 * Tokens carried by each content chunk: every chunk at least one (it had text), the rest of the
 * usage total shared in proportion to the chunks' characters (largest remainder). Without a
 * usage total, or with fewer tokens than chunks, each chunk counts as one token.
 */
export function tokensPerChunk(chars: readonly number[], total?: number): number[] {
  const ones = chars.map(() => 1);
  if (total === undefined || total <= chars.length) return ones;
  const extra = total - chars.length;
  const sum = chars.reduce((a, b) => a + b, 0) || 1;
  const quotas = chars.map((c) => (c / sum) * extra);
  const tokens = quotas.map((q) => 1 + Math.floor(q));
  let left = total - tokens.reduce((a, b) => a + b, 0);
  const byRemainder = quotas.map((q, i) => [q - Math.floor(q), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left-- <= 0) break;
    tokens[i]++;
  }
  return tokens;
}

/** Per-token gaps (ms) for content chunks that arrived at `times` carrying `tokens` each. */
export function interTokenGaps(times: readonly number[], tokens: readonly number[]): number[] {
  const gaps: number[] = [];
  times.forEach((t, i) => {
    const k = tokens[i];
    const share = i === 0 ? 0 : (t - times[i - 1]) / k;
    // The first chunk's first token is the TTFT, not a gap.
    for (let j = i === 0 ? 1 : 0; j < k; j++) gaps.push(share);
  });
  return gaps;
}
