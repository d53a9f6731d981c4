/** Token usage in the wire's shape: one home for the type and its builder, shared by the chunk writer, the collector and the run. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** An agent's usage event in the wire's shape. */
export function usageOf(event: { promptTokens: number; completionTokens: number }): Usage {
  return {
    prompt_tokens: event.promptTokens,
    completion_tokens: event.completionTokens,
    total_tokens: event.promptTokens + event.completionTokens,
  };
}
