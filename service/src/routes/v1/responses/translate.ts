/**
 * A Responses request as a chat completions request: the conversation (stored history, then
 * `instructions` first and the input items) as chat messages, function tools as chat tools,
 * `text.format` as `response_format`, `max_output_tokens` as `max_completion_tokens`. The chat
 * route's own checks then apply (chat-request.ts): an offline agent refuses what it cannot honour.
 */
import { ApiError, invalidParam, unsupportedParam } from "../../../errors.js";
import type { AgentKind, ChatMessage, ChatRequest } from "../../../domain/agents/types.js";
import type { InputItem } from "../../../domain/responses/types.js";
import { textOf } from "../../../domain/responses/input-items.js";
import { toChatRequest } from "../chat/completions/chat-request.js";
import type { ChatBody } from "../chat/completions/schema.js";
import type { ResponsesBody } from "./schema.js";

type Raw = Record<string, unknown>;

/** Items as chat messages: consecutive function calls join one assistant message, as chat carries them. */
export function chatMessages(items: readonly InputItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const item of items) {
    if (item.type === "function_call") {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === "assistant" && (last.tool_calls || typeof last.content === "string"))
        (last.tool_calls ??= []).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
    } else if (typeof item.content === "string") {
      messages.push({ role: item.role, content: item.content });
    } else if (item.role === "assistant") {
      messages.push({ role: "assistant", content: item.content.map(textOf).join("") });
    } else {
      const parts = item.content.map((p) =>
        p.type === "input_image"
          ? { type: "image_url", image_url: { url: p.image_url, ...(p.detail && { detail: p.detail }) } }
          : { type: "text", text: textOf(p) },
      );
      messages.push({ role: item.role, content: parts });
    }
  }
  return messages;
}

/** Function tools (Responses' flat shape) as chat tools; any other tool type is a 400 naming it. */
function chatTools(tools: readonly Raw[]): Raw[] {
  return tools.map((tool, i) => {
    if (tool.type !== "function") {
      throw invalidParam(
        `tools[${i}].type`,
        `Unsupported tool type '${String(tool.type).slice(0, 64)}': this server runs function tools only (type 'function').`,
        "unsupported_value",
      );
    }
    if (typeof tool.name !== "string" || !tool.name)
      throw invalidParam(
        `tools[${i}].name`,
        `Missing required parameter: 'tools[${i}].name'.`,
        "missing_required_parameter",
      );
    const fn: Raw = { name: tool.name };
    for (const field of ["description", "parameters", "strict"] as const)
      if (tool[field] != null) fn[field] = tool[field];
    return { type: "function", function: fn };
  });
}

function chatToolChoice(choice: ResponsesBody["tool_choice"]): ChatBody["tool_choice"] {
  if (choice === undefined || typeof choice === "string") return choice;
  if (choice.type === "function" && typeof choice.name === "string")
    return { type: "function", function: { name: choice.name } };
  throw invalidParam(
    "tool_choice",
    "Unsupported 'tool_choice': use 'auto', 'none', 'required' or {type: 'function', name}.",
    "unsupported_value",
  );
}

function responseFormat(format: Raw | undefined): ChatBody["response_format"] {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "json_schema") {
    const { type: _type, ...schema } = format;
    return { type: "json_schema", json_schema: schema } as ChatBody["response_format"];
  }
  throw invalidParam(
    "text.format.type",
    `Unsupported text format '${String(format.type).slice(0, 64)}': use text, json_object or json_schema.`,
    "unsupported_value",
  );
}

/** Fields this server cannot honour, refused by name rather than ignored. */
export function refuseUnsupported(body: ResponsesBody): void {
  if (body.conversation != null)
    throw unsupportedParam(
      "conversation",
      "is not supported by this server: continue a conversation with 'previous_response_id'.",
    );
  if (body.prompt != null)
    throw unsupportedParam("prompt", "is not supported by this server: send 'instructions' and 'input'.");
  if (body.background === true)
    throw unsupportedParam("background", "is not supported by this server: use 'stream' for long answers.");
  if (body.truncation != null && body.truncation !== "disabled")
    throw invalidParam("truncation", "Only 'disabled' truncation is supported.", "unsupported_value");
}

/** The chat request an agent is asked; `history` is the stored conversation before this input. */
export function toChat(
  body: ResponsesBody,
  history: readonly InputItem[],
  items: readonly InputItem[],
  kind: AgentKind,
): ChatRequest {
  refuseUnsupported(body);
  const messages: ChatMessage[] = chatMessages([...history, ...items]);
  if (body.instructions) messages.unshift({ role: "system", content: body.instructions });
  if (!messages.length) throw invalidParam("input", "The input is empty: send a message.", "invalid_value");
  const chat: ChatBody = {
    model: body.model,
    messages: messages as ChatBody["messages"],
    stream: body.stream === true,
  };
  if (body.tools?.length) chat.tools = chatTools(body.tools) as ChatBody["tools"];
  if (body.tool_choice !== undefined && body.tools?.length) chat.tool_choice = chatToolChoice(body.tool_choice);
  if (body.parallel_tool_calls != null && body.tools?.length) chat.parallel_tool_calls = body.parallel_tool_calls;
  const format = responseFormat(body.text?.format);
  if (format) chat.response_format = format;
  if (body.max_output_tokens != null) chat.max_completion_tokens = body.max_output_tokens;
  if (body.temperature != null) chat.temperature = body.temperature;
  if (body.top_p != null) chat.top_p = body.top_p;
  if (body.user !== undefined) chat.user = body.user;
  if (body.safety_identifier !== undefined) chat.safety_identifier = body.safety_identifier;
  if (body.prompt_cache_key !== undefined) chat.prompt_cache_key = body.prompt_cache_key;
  if (body.service_tier != null) chat.service_tier = body.service_tier;
  if (body.reasoning?.effort) chat.reasoning_effort = body.reasoning.effort;
  if (body.text?.verbosity) chat.verbosity = body.text.verbosity;
  if (kind !== "llm") refuseImages(body.input);
  try {
    return toChatRequest(chat, kind);
  } catch (err) {
    // The chat check's words, under the name this API gives the field.
    if (err instanceof ApiError && err.param === "response_format")
      throw unsupportedParam(
        "text.format",
        `is not supported by this model: it is a ${kind} agent, which answers in text only.`,
      );
    throw err;
  }
}

/**
 * Offline agents read text only: an image in the input is refused under its input param. Read from
 * `input` as sent (already checked by inputItems), so the index counts the reasoning items that the
 * normalized items drop.
 */
function refuseImages(input: ResponsesBody["input"]): void {
  if (typeof input === "string") return;
  input.forEach((raw, i) => {
    const { type, content } = raw as Raw;
    if (type === "reasoning" || !Array.isArray(content)) return;
    const j = content.findIndex((p) => (p as Raw | null)?.type === "input_image");
    if (j >= 0)
      throw invalidParam(
        `input[${i}].content[${j}].type`,
        "Invalid content type: 'input_image' parts are not supported by this model, which reads text parts only.",
        "unsupported_value",
      );
  });
}
