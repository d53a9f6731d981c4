/**
 * The agent a chat request names (chat completions, responses): an embeddings agent only embeds,
 * so it is refused by name here rather than sent a chat request its upstream model cannot answer.
 */
import { modelNotFound, notAChatModel } from "../../errors.js";
import type { Agent, AgentRegistry } from "./types.js";

export function chatAgent(agents: AgentRegistry, projectId: string, model: string): Agent {
  const agent = agents.resolve(projectId, model);
  if (!agent) throw modelNotFound(model);
  if (agent.embeddings) throw notAChatModel(model);
  return agent;
}
