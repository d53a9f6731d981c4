/**
 * MCP tool names for agents. Clients and model APIs commonly accept only `[A-Za-z0-9_-]{1,64}`,
 * so agent ids such as `chat:latest` become `ask_chat_latest`; collisions get a numeric suffix.
 */
const MAX_LENGTH = 64;

export function sanitizeToolName(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  return cleaned.slice(0, MAX_LENGTH) || "tool";
}

/** Tool name per agent id, unique within the list and never equal to one of `reserved`. */
export function agentToolNames(agentIds: string[], reserved: Iterable<string> = []): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  for (const id of agentIds) {
    const base = sanitizeToolName("ask_" + id);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = base.slice(0, MAX_LENGTH - String(n).length - 1) + "_" + n;
    taken.add(name);
    names.set(id, name);
  }
  return names;
}
