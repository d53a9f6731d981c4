/** Reads AGENTS_FILE (YAML or JSON) and adds the built-in agents the file does not declare. */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { yamlProblem } from "../../yaml-problem.js";
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
    const json = extname(source).toLowerCase() === ".json";
    throw new AgentsFileError(source, [
      `not valid ${json ? "JSON" : "YAML"}: ${json ? (err as Error).message : yamlProblem(err)}`,
    ]);
  }
  return validateAgents(doc, source);
}

/** Why a file could not be read, in words (the code follows in parentheses). */
const READ_ERRORS: Record<string, string> = {
  ENOENT: "there is no such file",
  EACCES: "this process may not read it",
  EISDIR: "it is a directory, not a file",
};

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
    const code = (err as NodeJS.ErrnoException).code;
    const why = READ_ERRORS[code ?? ""] ?? (err as Error).message;
    throw new AgentsFileError(`AGENTS_FILE ${agentsFile}`, [`cannot be read: ${why}${code ? ` (${code})` : ""}`]);
  }
  const specs = parseAgentsText(text, `AGENTS_FILE ${agentsFile}`);
  if (!specs.some((s) => s.id === DEFAULT_AGENT_ID)) specs.unshift(builtIns[0]);
  return specs;
}
