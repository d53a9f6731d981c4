/**
 * Writes docs/configuration.md from the two schemas it documents: the service's environment (the
 * readers service/src/config.ts calls, through describeEnvironment) and the stack files (the zod
 * schema of infra/stack/). `npm run docs:config` regenerates it; test/docs/config-reference.test.ts
 * fails when the file on disk differs from what this renders.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConfigError, describeEnvironment, loadConfig } from "../../service/src/config.js";
import type { EnvVariable } from "../../service/src/config/env-readers.js";
import { ENV_DESCRIPTIONS, ENV_GROUPS, SDK_VARIABLES, type EnvDescription } from "./env-descriptions.js";
import { describeStack, type StackKey } from "./stack-reference.js";

export const REFERENCE_FILE = fileURLToPath(new URL("../../docs/configuration.md", import.meta.url));
const SCHEMA_DIR = fileURLToPath(new URL("../../infra/stack", import.meta.url));

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${text}\``;

/** A byte count as the variables are usually written (`5120k`, `512m`). */
function bytesText(n: number): string {
  if (n % 1024 ** 2 === 0) return `${n / 1024 ** 2}m`;
  return n % 1024 === 0 ? `${n / 1024}k` : String(n);
}

function defaultText(variable: EnvVariable, description: EnvDescription): string {
  if (description.shownDefault) return description.shownDefault;
  const value = variable.fallback;
  if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) return "—";
  if (typeof value === "number" && variable.accepts.includes("byte size")) return code(bytesText(value));
  return code(
    typeof value === "string" || typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : JSON.stringify(value),
  );
}

/** Every variable read is described and every description names a variable read; otherwise throws, naming them. */
export function checkDescriptions(variables: EnvVariable[], descriptions: Record<string, EnvDescription>): void {
  const read = new Set(variables.map((v) => v.name));
  const undescribed = [...read].filter((name) => !descriptions[name]);
  const unread = Object.keys(descriptions).filter((name) => !read.has(name));
  const ungrouped = Object.entries(descriptions).filter(([, d]) => !ENV_GROUPS.includes(d.group));
  const problems = [
    ...ungrouped.map(([n, d]) => `${n}'s group "${d.group}" is not one of ENV_GROUPS`),
    ...undescribed.map((n) => `${n} is read by the service but has no entry in scripts/docs/env-descriptions.ts`),
    ...unread.map((n) => `${n} is described in scripts/docs/env-descriptions.ts but the service does not read it`),
  ];
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

/** What the service prints for a bad environment, produced by the service itself. */
function refusalExample(): string {
  const env = { PORT: "abc", LOG_LEVEL: "verbose", LLM_BASE_URL: "not-a-url", JWT_SECRET: "example" };
  try {
    loadConfig(env);
    throw new Error("the example environment was accepted");
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return [
      "$ PORT=abc LOG_LEVEL=verbose LLM_BASE_URL=not-a-url npm start",
      "agentport cannot start: fix these environment variables",
      ...err.problems,
    ].join("\n");
  }
}

function environmentSection(variables: EnvVariable[], descriptions: Record<string, EnvDescription>): string[] {
  checkDescriptions(variables, descriptions);
  const groups = ENV_GROUPS.filter((g) => variables.some((v) => descriptions[v.name].group === g));
  const out = [
    "## The API service's environment",
    "",
    "An environment the service cannot run with is refused before anything starts: every variable",
    "that is not valid gets one line saying what it accepts, and the process exits 2:",
    "",
    "```",
    refusalExample(),
    "```",
    "",
    "Unset and empty variables take their default. A variable marked 🔒 may hold a credential: no",
    "message or log line repeats its value.",
  ];
  for (const group of groups) {
    out.push("", `### ${group}`, "", "| variable | accepts | default | meaning |", "|---|---|---|---|");
    for (const v of variables.filter((v) => descriptions[v.name].group === group)) {
      const d = descriptions[v.name];
      const name = `${code(v.name)}${v.secret ? " 🔒" : ""}`;
      out.push(`| ${name} | ${cell(v.accepts)} | ${cell(defaultText(v, d))} | ${cell(d.meaning)} |`);
    }
  }
  out.push("", "### Read by the OpenTelemetry SDK", "", "| variable | meaning |", "|---|---|");
  for (const [name, meaning] of Object.entries(SDK_VARIABLES)) out.push(`| ${code(name)} | ${cell(meaning)} |`);
  return out;
}

function stackSection(groups: Map<string, StackKey[]>): string[] {
  const out = [
    "## Stack files",
    "",
    "A stack file, `stacks/Pulumi.<stack>.yaml`, holds one object per group under `config:`, keyed",
    "`agentport:<group>` (`agentport:api:`, `agentport:cloud:`, …); the keys below are the paths inside",
    "them. Before any resource is declared the whole file is validated and every problem is listed by",
    "its path; the rules beyond these types (TLS, secrets only as `secure:` values, placeholders, fixed",
    "values) are in [Deploying, validation](deploying.md#validation). A key without a default and not",
    "marked optional is required when its group or feature is used.",
    "",
    [...groups.keys()].map((g) => `[\`${g}\`](#${g.toLowerCase()})`).join(" · "),
  ];
  for (const [group, keys] of groups) {
    out.push("", `### ${group}`, "", "| key | accepts | default | description |", "|---|---|---|---|");
    for (const k of keys) {
      const shown = k.defaultValue !== undefined ? code(k.defaultValue) : k.required ? "required" : "—";
      out.push(`| ${code(k.path)} | ${cell(k.accepts)} | ${cell(shown)} | ${cell(k.description)} |`);
    }
  }
  return out;
}

/** The whole reference, as `npm run docs:config` writes it. */
export function renderConfigurationReference(
  variables: EnvVariable[] = describeEnvironment(),
  descriptions: Record<string, EnvDescription> = ENV_DESCRIPTIONS,
): string {
  return [
    "<!-- Generated by `npm run docs:config` from service/src/config.ts, scripts/docs/env-descriptions.ts",
    "     and the stack schema in infra/stack/. Edit those and regenerate; a test fails when this is stale. -->",
    "",
    "# Configuration reference",
    "",
    "- [The API service's environment](#the-api-services-environment): what `npm start`, the built",
    "  `node server.js` and the deployed pods read.",
    "- [Stack files](#stack-files): every key of `stacks/Pulumi.<stack>.yaml`, which the Pulumi program",
    "  and the load test read.",
    "",
    ...environmentSection(variables, descriptions),
    "",
    ...stackSection(describeStack(SCHEMA_DIR)),
    "",
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(REFERENCE_FILE, renderConfigurationReference());
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
}
