/**
 * Workloads sized in tokens, as GuideLLM's `--data "prompt_tokens=256,output_tokens=128"`: the
 * prompt is that many tokens of OpenAI's o200k encoding once the chat framing is counted, and
 * the answer is asked to stop at `output_tokens` (`max_tokens`).
 */

export interface Workload {
  promptTokens?: number;
  outputTokens?: number;
}

const KEYS = { prompt_tokens: "promptTokens", output_tokens: "outputTokens" } as const;

export function parseWorkload(spec: string): Workload {
  const out: Workload = {};
  for (const pair of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value] = pair.split("=").map((s) => s.trim());
    const field = KEYS[key as keyof typeof KEYS];
    if (!field) throw new Error(`--data knows ${Object.keys(KEYS).join(" and ")} (got '${key}')`);
    const n = Number(value);
    if (!value || !Number.isInteger(n) || n < 1)
      throw new Error(`--data ${key} must be a whole number >= 1 (got '${value ?? ""}')`);
    out[field] = n;
  }
  return out;
}

/**
 * A chat message whose prompt counts `tokens` tokens: " hello" is one o200k token, and a
 * one-message chat adds 7 (3 for the message, 1 for its role, 3 priming the reply).
 */
export const PROMPT_FRAMING_TOKENS = 7;

export function promptText(tokens: number): string {
  const words = Math.max(1, tokens - PROMPT_FRAMING_TOKENS);
  return "hello" + " hello".repeat(words - 1);
}
