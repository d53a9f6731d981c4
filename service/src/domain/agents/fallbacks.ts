/**
 * An llm agent's `fallbacks` checked against the whole configuration (the agents file and the
 * built-ins): each names another llm agent, once, and no chain of fallbacks leads back to where
 * it started. A chain is not followed at run time (an agent tries its own list only); a cycle is
 * refused all the same, since whoever wrote it expected it to be.
 */

/** What the check reads of an agent's spec (agent-spec.ts calls it: no import back). */
export interface FallbackSpec {
  id: string;
  kind: string;
  fallbacks?: readonly string[];
}

/** `outside`: ids of agents defined elsewhere (the built-ins), taken on trust here and checked once they are known. */
export function fallbackProblems(specs: readonly FallbackSpec[], outside: readonly string[] = []): string[] {
  const byId = new Map(specs.map((s) => [s.id, s]));
  const problems: string[] = [];
  for (const spec of specs) {
    if (spec.kind !== "llm" || !spec.fallbacks) continue;
    const seen = new Set<string>();
    for (const target of spec.fallbacks) {
      const other = byId.get(target);
      if (seen.has(target)) problems.push(`agent '${spec.id}': fallback '${target}' is listed twice`);
      else if (target === spec.id) problems.push(`agent '${spec.id}': fallback '${target}' is the agent itself`);
      else if (!other) {
        if (!outside.includes(target)) problems.push(`agent '${spec.id}': fallback '${target}' is not an agent id`);
      } else if (other.kind !== "llm")
        problems.push(
          `agent '${spec.id}': fallback '${target}' is a ${other.kind} agent; fallbacks must be llm agents`,
        );
      seen.add(target);
    }
  }
  const cycle = findCycle(specs);
  if (cycle) problems.push(`agents' fallbacks form a cycle: ${cycle.join(" → ")}`);
  return problems;
}

/** One cycle of the fallback graph (its ids, the first repeated at the end), or undefined. */
function findCycle(specs: readonly FallbackSpec[]): string[] | undefined {
  const edges = new Map(
    specs.map((s) => [s.id, s.kind === "llm" ? (s.fallbacks ?? []).filter((t) => t !== s.id) : []]),
  );
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const at = path.indexOf(id);
    if (at >= 0) return [...path.slice(at), id];
    if (done.has(id) || !edges.has(id)) return undefined;
    path.push(id);
    for (const next of edges.get(id)!) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    done.add(id);
    return undefined;
  };
  for (const id of edges.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}
