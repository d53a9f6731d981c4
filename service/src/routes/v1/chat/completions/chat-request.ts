/** Turns a validated request body into what an agent is asked, refusing what that agent cannot honour. */
import { invalidParam, missingParam, unsupportedParam } from "../../../../errors.js";
import type { AgentKind, ChatMessage, ChatRequest } from "../../../../domain/agents/types.js";
import { LLM_ONLY, type ChatBody } from "./schema.js";

export function toChatRequest(body: ChatBody, kind: AgentKind): ChatRequest {
  if (body.stream_options != null && body.stream !== true) {
    throw invalidParam("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  }
  body.messages.forEach((m, i) => {
    if (m.content == null && !(m.role === "assistant" && m.tool_calls?.length))
      throw missingParam(`messages[${i}].content`);
  });
  // An upstream LLM gets every field as sent and its answer reaches the client whole.
  if (kind === "llm") return { messages: body.messages as ChatMessage[], stream: body.stream === true, fields: body };
  refuseUnanswerable(body, kind);
  const request: ChatRequest = { messages: body.messages as ChatMessage[], stream: body.stream === true };
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) request.max_tokens = maxTokens;
  return request;
}

/** What an offline agent's answer could not carry is refused, never dropped without a word. */
function refuseUnanswerable(body: ChatBody, kind: AgentKind): void {
  if (body.n != null && body.n !== 1) {
    throw invalidParam(
      "n",
      `Invalid value for 'n': only 1 is supported by this model, a ${kind} agent (got ${body.n}).`,
      "unsupported_value",
    );
  }
  if (body.logprobs === true || (body.top_logprobs ?? 0) > 0) {
    throw unsupportedParam(
      body.logprobs === true ? "logprobs" : "top_logprobs",
      `is not supported by this model: it is a ${kind} agent, whose answers carry no log probabilities.`,
    );
  }
  const otherModality = body.modalities?.find((m) => m !== "text");
  if (otherModality !== undefined || body.audio != null) {
    throw unsupportedParam(
      body.audio != null ? "audio" : "modalities",
      `is not supported by this model: it is a ${kind} agent, which answers in text only${otherModality ? ` (got '${otherModality}')` : ""}.`,
    );
  }
  body.messages.forEach((m, i) => {
    // Only an upstream LLM sees images or audio; the other kinds read text and would drop them unseen.
    if (!Array.isArray(m.content)) return;
    m.content.forEach((part, j) => {
      if (part.type !== "text") {
        throw invalidParam(
          `messages[${i}].content[${j}].type`,
          `Invalid content type: '${part.type}' parts are not supported by this model: it is a ${kind} agent, which reads text parts only.`,
          "unsupported_value",
        );
      }
    });
  });
  for (const field of LLM_ONLY) {
    const value = body[field];
    if (value == null || (field === "response_format" && body.response_format?.type === "text")) continue;
    if ((field === "tools" || field === "functions") && body[field]?.length === 0) continue;
    throw unsupportedParam(field, `is not supported by this model: it is a ${kind} agent, not an upstream LLM.`);
  }
}
