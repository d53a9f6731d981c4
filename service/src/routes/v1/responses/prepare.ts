/**
 * What a Responses run needs before it starts: the agent, the stored conversation it continues,
 * the input items, the chat request the agent is asked, and the response's head. Every refusal
 * here is a 4xx in the OpenAI envelope, before anything is reserved.
 */
import { chatAgent } from "../../../domain/agents/chat-agent.js";
import { invalidParam, previousResponseNotFound, storageQuotaExceeded, toolNotAllowed } from "../../../errors.js";
import { CLIENT_TOOL_TYPES } from "../../../domain/agents/agent-spec.js";
import type { Agent, AgentRegistry, ChatRequest } from "../../../domain/agents/types.js";
import { RESPONSE_ID } from "../../../domain/responses/ids.js";
import { inputItems } from "../../../domain/responses/input-items.js";
import { newResponse } from "../../../domain/responses/response-object.js";
import { ConversationTooLong, type ResponseStore } from "../../../domain/responses/response-store.js";
import type { InputItem, ResponseObject } from "../../../domain/responses/types.js";
import type { ResponsesBody } from "./schema.js";
import { chatMessages, refuseUnsupported, toChat } from "./translate.js";

export interface PreparedRun {
  agent: Agent;
  /** The conversation before this input (from `previous_response_id`), as items. */
  history: InputItem[];
  /** This request's own input items (what is stored with the response). */
  items: InputItem[];
  /** What the agent is asked: a chat request, or (`forward`) the Responses body for its upstream in `fields`. */
  chat: ChatRequest;
  /** The agent's upstream has its own Responses API: the request is forwarded, not translated. */
  forward: boolean;
  /** The response's head, in progress. */
  response: ResponseObject;
}

async function history(store: ResponseStore, projectId: string, id: string): Promise<InputItem[]> {
  if (!RESPONSE_ID.test(id)) throw previousResponseNotFound(id);
  try {
    const items = await store.conversation(projectId, id);
    if (!items) throw previousResponseNotFound(id);
    return items;
  } catch (err) {
    if (err instanceof ConversationTooLong)
      throw invalidParam(
        "previous_response_id",
        `The conversation cannot be continued: ${err.message}. Start a new one.`,
      );
    throw err;
  }
}

/**
 * A built-in tool (file_search, code_interpreter, mcp, web_search…) runs on the upstream, on this
 * deployment's account and out of the meter's sight: only those the agent declares may be sent.
 */
function refuseUndeclaredTools(agent: Agent, tools: readonly unknown[] | undefined): void {
  tools?.forEach((tool, i) => {
    const type = tool && typeof tool === "object" ? (tool as { type?: unknown }).type : undefined;
    const name = typeof type === "string" ? type : String(type);
    if (CLIENT_TOOL_TYPES.includes(name) || agent.builtinTools?.has(name)) return;
    throw toolNotAllowed(`tools[${i}].type`, name, agent.id);
  });
}

/**
 * The body for an upstream's own /responses: the client's fields, the whole conversation as
 * `input` (without this server's item ids, which the upstream never stored). The chat messages
 * are the run's token estimate only.
 */
function forwardRequest(body: ResponsesBody, conversation: InputItem[]): ChatRequest {
  refuseUnsupported(body);
  const {
    model: _model,
    input: _input,
    previous_response_id: _previous,
    store: _store,
    stream: _stream,
    metadata: _metadata,
    ...fields
  } = body;
  const input = conversation.map(({ id: _id, status: _status, ...item }) => item);
  const messages = chatMessages(conversation);
  if (body.instructions) messages.unshift({ role: "system", content: body.instructions });
  return { messages, fields: { ...fields, input }, stream: body.stream === true };
}

/**
 * A run that will be stored is refused once the project's stored responses would pass its cap
 * (RESPONSES_PROJECT_MAX_BYTES; 0: none), before anything runs. Counted from the shared store,
 * so replicas agree; runs in flight at once may each pass, by at most their own size.
 */
export async function refuseOverQuota(
  store: ResponseStore,
  projectId: string,
  prepared: PreparedRun,
  capBytes: number,
): Promise<void> {
  if (capBytes === 0 || !prepared.response.store) return;
  const stored = await store.storedBytes(projectId);
  if (stored + Buffer.byteLength(JSON.stringify(prepared.items)) > capBytes)
    throw storageQuotaExceeded(stored, capBytes);
}

export async function prepareRun(
  agents: AgentRegistry,
  store: ResponseStore,
  projectId: string,
  body: ResponsesBody,
): Promise<PreparedRun> {
  const agent = chatAgent(agents, projectId, body.model);
  const items = inputItems(body.input);
  const before = body.previous_response_id ? await history(store, projectId, body.previous_response_id) : [];
  const forward = agent.forwardResponses !== undefined;
  if (forward) refuseUndeclaredTools(agent, body.tools);
  const chat = forward ? forwardRequest(body, [...before, ...items]) : toChat(body, before, items, agent.kind);
  return { agent, history: before, items, chat, forward, response: newResponse(body) };
}
