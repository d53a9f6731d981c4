/**
 * What a text completion asks of its agent. An `llm` agent whose upstream has the legacy API
 * (`completions: true` in the agents file) gets the body as sent, relayed to its `/completions`.
 * Any other agent gets the prompt as one user message through chat (chat-request.ts's checks): what
 * only a real completions endpoint can do (several prompts, token ids, echo, suffix, best_of,
 * logprobs) is refused naming the field, never dropped.
 */
import { unsupportedParam } from "../../../errors.js";
import type { Agent, ChatRequest } from "../../../domain/agents/types.js";
import { toChatRequest } from "../chat/completions/chat-request.js";
import type { ChatBody } from "../chat/completions/schema.js";
import type { CompletionBody } from "./schema.js";

/** OpenAI's default `max_tokens` for text completions (its API reference): a translated request gets it too. */
export const DEFAULT_MAX_TOKENS = 16;

export interface TextPlan {
  /** The agent as this request runs it: its upstream's `/completions` when relayed. */
  agent: Agent;
  chat: ChatRequest;
  /** Relayed to an upstream's own `/completions`: its answers are already text completions. */
  relayed: boolean;
}

const RELAY_ONLY = ["echo", "suffix", "best_of", "logprobs"] as const;

/** The prompt as one text, for the token estimate of a relayed request. */
function promptText(prompt: CompletionBody["prompt"]): string {
  if (typeof prompt === "string") return prompt;
  return prompt.map((p) => (typeof p === "string" ? p : Array.isArray(p) ? p.join(" ") : String(p))).join("\n");
}

export function textPlan(body: CompletionBody, agent: Agent): TextPlan {
  const messages = [{ role: "user" as const, content: promptText(body.prompt) }];
  if (agent.runCompletion) {
    const { model: _model, ...fields } = body;
    const relay: Agent = { ...agent, run: agent.runCompletion };
    return { agent: relay, chat: { messages, fields, stream: body.stream === true }, relayed: true };
  }
  const why = `needs an agent whose upstream has the completions API (\`completions: true\`); ${agent.modelId} is a ${agent.kind} agent answering through chat.`;
  if (Array.isArray(body.prompt) && (body.prompt.length > 1 || typeof body.prompt[0] !== "string"))
    throw unsupportedParam("prompt", `as a list of several prompts or as token ids ${why}`);
  for (const field of RELAY_ONLY) {
    const value = body[field];
    if (
      value != null &&
      value !== false &&
      !(field === "best_of" && value === 1) &&
      !(field === "suffix" && value === "")
    )
      throw unsupportedParam(field, why);
  }
  const chatBody: ChatBody = {
    model: body.model,
    messages,
    stream: body.stream,
    stream_options: body.stream_options,
    max_tokens: body.max_tokens ?? DEFAULT_MAX_TOKENS,
    temperature: body.temperature,
    top_p: body.top_p,
    n: body.n,
    stop: body.stop,
    presence_penalty: body.presence_penalty,
    frequency_penalty: body.frequency_penalty,
    logit_bias: body.logit_bias,
    seed: body.seed,
    user: body.user,
  };
  // Fields the client did not send stay out of what an upstream's chat is sent.
  for (const key of Object.keys(chatBody) as Array<keyof ChatBody>)
    if (chatBody[key] === undefined) delete chatBody[key];
  return { agent, chat: toChatRequest(chatBody, agent.kind), relayed: false };
}
