/** Turns a validated request body into what an agent is asked, refusing what that agent cannot honour. */
import { invalidParam, missingParam, unsupportedParam } from "../../../../errors.js";
import type { AgentKind, ChatMessage, ChatRequest } from "../../../../domain/agents/types.js";
import { LLM_ONLY, PASSTHROUGH, type ChatBody } from "./schema.js";

export function toChatRequest(body: ChatBody, kind: AgentKind): ChatRequest {
  if (body.n != null && body.n !== 1) {
    throw invalidParam("n", `Invalid value for 'n': only 1 is supported (got ${body.n}).`, "unsupported_value");
  }
  // What the answer could not carry is refused, never dropped without a word.
  if (body.logprobs === true || (body.top_logprobs ?? 0) > 0) {
    throw unsupportedParam(body.logprobs === true ? "logprobs" : "top_logprobs", "is not supported: answers carry no log probabilities.");
  }
  const otherModality = body.modalities?.find((m) => m !== "text");
  if (otherModality !== undefined || body.audio != null) {
    throw unsupportedParam(body.audio != null ? "audio" : "modalities", `is not supported: answers are text only${otherModality ? ` (got '${otherModality}')` : ""}.`);
  }
  if (body.stream_options != null && body.stream !== true) {
    throw invalidParam("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  }
  body.messages.forEach((m, i) => {
    if (m.content == null && !(m.role === "assistant" && m.tool_calls?.length)) throw missingParam(`messages[${i}].content`);
    // Only an upstream LLM sees images or audio; the other kinds read text and would drop them unseen.
    if (kind !== "llm" && Array.isArray(m.content)) {
      m.content.forEach((part, j) => {
        if (part.type !== "text") {
          throw invalidParam(`messages[${i}].content[${j}].type`, `Invalid content type: '${part.type}' parts are not supported by this model: it is a ${kind} agent, which reads text parts only.`, "unsupported_value");
        }
      });
    }
  });
  if (kind !== "llm") {
    for (const field of LLM_ONLY) {
      const value = body[field];
      if (value === undefined || (field === "response_format" && body.response_format?.type === "text")) continue;
      if ((field === "tools" || field === "functions") && body[field]?.length === 0) continue;
      if (value === null) continue;
      throw unsupportedParam(field, `is not supported by this model: it is a ${kind} agent, not an upstream LLM.`);
    }
  }
  const request: ChatRequest = { messages: body.messages as ChatMessage[], stream: body.stream === true };
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.top_p = body.top_p;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (maxTokens != null) request.max_tokens = maxTokens;
  if (body.stop != null) request.stop = body.stop;
  if (body.user !== undefined) request.user = body.user;
  if (body.metadata != null) request.metadata = body.metadata;
  if (body.tools !== undefined) request.tools = body.tools;
  if (body.tool_choice !== undefined) request.tool_choice = body.tool_choice;
  let passthrough: Record<string, unknown> | undefined;
  for (const field of PASSTHROUGH) {
    if (body[field] != null) (passthrough ??= {})[field] = body[field];
  }
  if (passthrough) request.passthrough = passthrough;
  return request;
}
