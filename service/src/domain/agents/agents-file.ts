/** Reads AGENTS_FILE (YAML or JSON) and adds the built-in agents the file does not declare. */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { AgentsFileError, validateAgents, type AgentSpec } from "./agent-spec.js";

export const DEFAULT_AGENT_ID = "chat:latest";

/** Built-ins: the default chat agent, and a synthetic agent so load tests always have a target. */
export function builtInAgents(upstreamModel: string | undefined): AgentSpec[] {
  const chat: AgentSpec = upstreamModel
    ? { id: DEFAULT_AGENT_ID, kind: "llm", model: upstreamModel, description: "Default chat agent (upstream LLM)." }
    : {
        id: DEFAULT_AGENT_ID,
        kind: "files",
        description:
          "Default chat agent, offline: no upstream LLM is configured, so it answers from the project's files.",
      };
  return [
    chat,
    {
      id: "synthetic-20",
      kind: "synthetic",
      tokens: 20,
      description: "Synthetic agent for load tests: streams 20 fixed tokens, not a model.",
    },
  ];
}

export function parseAgentsText(text: string, source: string): AgentSpec[] {
  let doc: unknown;
  try {
    doc = extname(source).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new AgentsFileError(source, [
      `not valid ${extname(source).toLowerCase() === ".json" ? "JSON" : "YAML"}: ${(err as Error).message}`,
    ]);
  }
  return validateAgents(doc, source);
}

/**
 * The agents the service offers: the file's, plus `chat:latest` if the file lacks it; built-ins
 * without a file. `upstreamModel` is set when an upstream LLM is configured.
 */
export function loadAgentSpecs(agentsFile: string | undefined, upstreamModel: string | undefined): AgentSpec[] {
  const builtIns = builtInAgents(upstreamModel);
  if (!agentsFile) return builtIns;
  let text: string;
  try {
    text = readFileSync(agentsFile, "utf8");
  } catch (err) {
    throw new AgentsFileError(`AGENTS_FILE ${agentsFile}`, [
      `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    ]);
  }
  const specs = parseAgentsText(text, `AGENTS_FILE ${agentsFile}`);
  if (!specs.some((s) => s.id === DEFAULT_AGENT_ID)) specs.unshift(builtIns[0]);
  return specs;
}
