/**
 * Validates a whole stack as a plain object (the `agentport:` config keys without their
 * namespace). Pure: no Pulumi. Every problem is reported at once, by parameter path.
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import type { Rule } from "./rule.js";
import { azureKeyRules } from "./rules-azure-keys.js";
import { fixedImageIssues } from "./fixed-images.js";
import { deployRules } from "./rules-deploy.js";
import { lifecycleRules } from "./rules-lifecycle.js";
import { platformRules } from "./rules-platform.js";
import { GROUPS, GROUP_NAMES, type GroupName, type StackSpec } from "./schema.js";
import { PLACEHOLDER, isSensitivePath, isStandIn } from "./sensitive.js";
import { tlsRules } from "./rules-tls.js";
import { unusedPaths } from "./unused.js";

export interface Issue {
  path: string;
  message: string;
}

export type Validation = { ok: true; spec: StackSpec; issues: [] } | { ok: false; issues: Issue[] };

const RULES: Rule[] = [...deployRules, ...platformRules, ...tlsRules, ...lifecycleRules, ...azureKeyRules];

/** How the reader knows a value was a `secure:` entry: its stand-in offline, its path under Pulumi. */
export interface ValidateOptions {
  /** True when the value at this dotted path was given as a `secure:` entry (stand-ins always are). */
  isSecure?: (path: string, value: string) => boolean;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)),
    "",
  );
}

function fromZod(group: string, error: z.ZodError): Issue[] {
  return error.issues.flatMap((i): Issue[] => {
    const path = dotted([group, ...i.path]);
    if (i.code === "unrecognized_keys")
      return i.keys.map((k) => ({ path: `${path}.${k}`, message: "unknown parameter" }));
    if (i.code === "invalid_type" && /received undefined/.test(i.message)) return [{ path, message: "is required" }];
    return [{ path, message: i.message.replace(/^Invalid input: /, "") }];
  });
}

/** Every string left with a package placeholder, outside unused parts of the stack. */
function placeholders(value: unknown, path: string, skip: (p: string) => boolean, out: Issue[]): void {
  if (skip(path)) return;
  if (typeof value === "string" && PLACEHOLDER.test(value))
    out.push({ path, message: "still holds a package placeholder; replace it" });
  else if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, skip, out));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) placeholders(v, `${path}.${k}`, skip, out);
}

/** Every secret of the reference given in plaintext: a stack file must hold it encrypted, or leave it to be generated. */
function plaintextSecrets(
  value: unknown,
  path: string,
  isSecure: NonNullable<ValidateOptions["isSecure"]>,
  out: Issue[],
): void {
  // A number or boolean at a secret's path is plaintext too (a `secure:` entry is always a string).
  if ((typeof value === "number" || typeof value === "boolean") && isSensitivePath(path)) {
    out.push({
      path,
      message:
        "is a secret: set it with `pulumi config set --secret` (a string); a plaintext number or boolean is refused",
    });
  } else if (typeof value === "string") {
    // A package placeholder is no secret (the placeholder check names it where it is used).
    if (value !== "" && !PLACEHOLDER.test(value) && isSensitivePath(path) && !isSecure(path, value)) {
      out.push({
        path,
        message:
          "is a secret: set it with `pulumi config set --secret` (or leave it unset where it is generated); plaintext in a stack file is refused",
      });
    }
  } else if (Array.isArray(value)) value.forEach((v, i) => plaintextSecrets(v, `${path}[${i}]`, isSecure, out));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) plaintextSecrets(v, `${path}.${k}`, isSecure, out);
}

const UNKNOWN_GROUP = "unknown top-level key";

/** The refusal of a top-level key no group has, with the group it most likely meant. */
function unknownGroup(key: string): string {
  const near = closest(key, GROUP_NAMES);
  // A typo is a few letters off; a key of another program (`aws:region` is not ours) is not.
  const likely = distance(key.toLowerCase(), near.toLowerCase()) <= Math.max(2, Math.floor(near.length / 3));
  return likely
    ? `${UNKNOWN_GROUP} (agentport:${key}); did you mean agentport:${near}?`
    : `${UNKNOWN_GROUP} (agentport:${key}); the groups are listed in docs/configuration.md`;
}

export function validateStack(raw: Record<string, unknown>, options: ValidateOptions = {}): Validation {
  const isSecure = (path: string, value: string) => isStandIn(value) || (options.isSecure?.(path, value) ?? false);
  const issues: Issue[] = [];
  const parsed: Partial<Record<GroupName, unknown>> = {};
  for (const key of Object.keys(raw)) {
    if (!(GROUP_NAMES as string[]).includes(key)) issues.push({ path: key, message: unknownGroup(key) });
  }
  for (const group of GROUP_NAMES) {
    const result = GROUPS[group].safeParse(raw[group]);
    if (result.success) parsed[group] = result.data;
    else issues.push(...fromZod(group, result.error));
  }
  const fixed = fixedImageIssues(raw);
  const kept = issues.filter((i) => !(fixed.replaces.has(i.path) && i.message === "unknown parameter"));
  issues.splice(0, issues.length, ...kept, ...fixed.issues);
  const partial = parsed as StackSpec;
  for (const r of RULES) {
    if (r.needs.every((g) => g in parsed)) r.check(partial, (path, message) => issues.push({ path, message }));
  }
  const unused = unusedPaths(parsed as Partial<StackSpec>);
  const skip = (p: string) => unused.some((u) => p === u || p.startsWith(`${u}.`) || p.startsWith(`${u}[`));
  for (const group of GROUP_NAMES) placeholders(parsed[group] ?? raw[group], group, skip, issues);
  for (const group of GROUP_NAMES) plaintextSecrets(raw[group], group, isSecure, issues);
  const unique = [...new Map(issues.map((i) => [`${i.path}\u0000${i.message}`, i])).values()];
  return unique.length === 0 ? { ok: true, spec: partial, issues: [] } : { ok: false, issues: unique };
}

/**
 * One line per problem for an error message: unknown top-level keys first (a misspelt group is
 * the cause of the problems its real group then shows), then the rest by path.
 */
export function formatIssues(issues: Issue[]): string {
  const rank = (i: Issue) => (i.message.startsWith(UNKNOWN_GROUP) ? 0 : 1);
  return [...issues]
    .sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path))
    .map((i) => `  ${i.path}: ${i.message}`)
    .join("\n");
}

/** Validates or throws one error that lists every problem. */
export function requireValidStack(
  raw: Record<string, unknown>,
  stack = "stack",
  options: ValidateOptions = {},
): StackSpec {
  const v = validateStack(raw, options);
  if (!v.ok) throw new Error(`${stack} configuration has ${v.issues.length} problem(s):\n${formatIssues(v.issues)}`);
  return v.spec;
}
