/**
 * Validates a whole stack as a plain object (the `agentport:` config keys without their
 * namespace). Pure: no Pulumi. Every problem is reported at once, by parameter path.
 */
import type { z } from "zod";
import type { Rule } from "./rule.js";
import { deployRules } from "./rules-deploy.js";
import { platformRules } from "./rules-platform.js";
import { GROUPS, GROUP_NAMES, type GroupName, type StackSpec } from "./schema.js";
import { PLACEHOLDER } from "./sensitive.js";
import { unusedPaths } from "./unused.js";

export interface Issue {
  path: string;
  message: string;
}

export type Validation = { ok: true; spec: StackSpec; issues: [] } | { ok: false; issues: Issue[] };

const RULES: Rule[] = [...deployRules, ...platformRules];

function dotted(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), "");
}

function fromZod(group: string, error: z.ZodError): Issue[] {
  return error.issues.flatMap((i): Issue[] => {
    const path = dotted([group, ...i.path]);
    if (i.code === "unrecognized_keys") return i.keys.map((k) => ({ path: `${path}.${k}`, message: "unknown parameter" }));
    if (i.code === "invalid_type" && /received undefined/.test(i.message)) return [{ path, message: "is required" }];
    return [{ path, message: i.message.replace(/^Invalid input: /, "") }];
  });
}

/** Every string left with a package placeholder, outside unused parts of the stack. */
function placeholders(value: unknown, path: string, skip: (p: string) => boolean, out: Issue[]): void {
  if (skip(path)) return;
  if (typeof value === "string" && PLACEHOLDER.test(value)) out.push({ path, message: "still holds a package placeholder; replace it" });
  else if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, skip, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) placeholders(v, `${path}.${k}`, skip, out);
}

export function validateStack(raw: Record<string, unknown>): Validation {
  const issues: Issue[] = [];
  const parsed: Partial<Record<GroupName, unknown>> = {};
  for (const key of Object.keys(raw)) {
    if (!(GROUP_NAMES as string[]).includes(key)) issues.push({ path: key, message: "unknown top-level key" });
  }
  for (const group of GROUP_NAMES) {
    const result = GROUPS[group].safeParse(raw[group]);
    if (result.success) parsed[group] = result.data;
    else issues.push(...fromZod(group, result.error));
  }
  const partial = parsed as StackSpec;
  for (const r of RULES) {
    if (r.needs.every((g) => g in parsed)) r.check(partial, (path, message) => issues.push({ path, message }));
  }
  const unused = unusedPaths(parsed as Partial<StackSpec>);
  const skip = (p: string) => unused.some((u) => p === u || p.startsWith(`${u}.`) || p.startsWith(`${u}[`));
  for (const group of GROUP_NAMES) placeholders(parsed[group] ?? raw[group], group, skip, issues);
  const unique = [...new Map(issues.map((i) => [`${i.path}\u0000${i.message}`, i])).values()];
  return unique.length === 0 ? { ok: true, spec: partial, issues: [] } : { ok: false, issues: unique };
}

/** One line per problem, sorted by path, for an error message. */
export function formatIssues(issues: Issue[]): string {
  return [...issues]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((i) => `  ${i.path}: ${i.message}`)
    .join("\n");
}

/** Validates or throws one error that lists every problem. */
export function requireValidStack(raw: Record<string, unknown>, stack = "stack"): StackSpec {
  const v = validateStack(raw);
  if (!v.ok) throw new Error(`${stack} configuration has ${v.issues.length} problem(s):\n${formatIssues(v.issues)}`);
  return v.spec;
}
