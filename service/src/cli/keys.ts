/**
 * `npm run keys -- create --name NAME [--project ID] [--rpm N] [--tpm N] [--expires-at T] [--json]`,
 * `keys list`, `keys delete ID`, `keys usage [--days N]`: API keys and their completions usage and cost,
 * `keys budget [--budget-usd USD --budget-period P | --remove]`: the project's budget,
 * for bootstrap and scripts; `keys token --project ID --role ROLE --ttl T`: a member's JWT.
 *
 * With DATABASE_URL the CLI works on the store directly. With the embedded store, PGlite holds
 * its data dir exclusively: when the server is up the CLI goes through its HTTP API with a
 * short-lived owner token signed with the same JWT secret; otherwise it opens the store itself.
 */
import { SERVICE_VERSION } from "../version.js";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type ServiceConfig } from "../config.js";
import { MCP_CLIENTS, type McpClient } from "../domain/mcp-configs.js";
import { MEMBER_ROLES } from "../domain/member-token.js";
import { runningServer } from "../server-record.js";
import {
  keysOverHttp,
  keysOnStore,
  type CreatedKey,
  type KeyOps,
  type ListedKey,
  type NewKeyOptions,
  type ProjectBudgetView,
} from "./key-ops.js";
import { isRole, mintToken, parseTtl } from "./token-command.js";
import { summarize, usageTable } from "./usage-summary.js";

const USAGE = `usage: npm run keys -- create --name NAME [--project ID] [--rpm N] [--tpm N] [--expires-at UNIX_SECONDS] [--client CLIENT] [--json]
       npm run keys -- list [--project ID] [--json]
       npm run keys -- delete KEY_ID [--project ID] [--json]
       npm run keys -- usage [--days N] [--project ID] [--json]
       npm run keys -- budget [--project ID] [--budget-usd USD --budget-period P | --remove] [--json]
       npm run keys -- token [--project ID] [--role ROLE] [--ttl T] [--user ID] [--json]

  -n, --name NAME               the new key's name (create)
      --rpm N, --tpm N          the new key's own requests and tokens per minute (create; default: RATE_LIMIT_RPM, RATE_LIMIT_TPM)
      --expires-at T            the key is refused after T, Unix seconds (create; default: never)
      --budget-usd USD          the key's (create) or the project's (budget) budget, USD per period
      --budget-period P         the budget's period: 30s, 15m, 12h, 7d, 1mo (calendar month, UTC) or total (default: 1mo)
      --remove                  remove the project's own budget (budget)
      --days N                  usage of the last N days, today included (usage; default: 30)
  -p, --project ID              the project (default: default)
      --role ROLE               the token's role: ${MEMBER_ROLES.join(", ")} (token; default: member)
      --ttl T                   the token's lifetime: seconds, or 15m, 12h, 7d; at most 30d (token; default: 1h)
      --user ID                 the token's subject (token; default: operator)
      --client CLIENT           the MCP configuration for one client (create): ${MCP_CLIENTS.join(", ")}
      --json                    print one JSON document
  -h, --help                    this text
      --version                 the agentport version
(use 'npm run -s keys …' to keep npm's own banner out of --json output)`;

const COMMANDS = ["create", "list", "delete", "usage", "token", "budget"];

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

/** Unknown flags and missing values are usage errors (exit 2), not stack traces. */
function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: "string", short: "n" },
        "expires-at": { type: "string" },
        rpm: { type: "string" },
        tpm: { type: "string" },
        project: { type: "string", short: "p", default: "default" },
        role: { type: "string", default: "member" },
        ttl: { type: "string", default: "1h" },
        user: { type: "string", default: "operator" },
        json: { type: "boolean", default: false },
        client: { type: "string", default: "generic" },
        days: { type: "string", default: "30" },
        "budget-usd": { type: "string" },
        "budget-period": { type: "string", default: "1mo" },
        remove: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
}

type Values = ReturnType<typeof parseCommandLine>["values"];

/** A whole number in [1, max] from flag `flag`, or a usage error; undefined when not given. */
function countFlag(value: string | undefined, flag: string, max: number, example: string): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= max))
    fail(`${flag} takes a whole number from 1 to ${max}, such as ${example}`);
  return n;
}

/** `create`'s options, checked as the API checks `expires_at` and `rate_limits`. */
function newKeyOptions(values: Values): NewKeyOptions {
  const expiresAt = values["expires-at"] === undefined ? undefined : Number(values["expires-at"]);
  if (expiresAt !== undefined && !(Number.isInteger(expiresAt) && expiresAt > 0))
    fail("--expires-at takes Unix seconds, such as 1893456000");
  const rpm = countFlag(values.rpm, "--rpm", 1_000_000_000, "60");
  const tpm = countFlag(values.tpm, "--tpm", 1_000_000_000_000, "100000");
  return { expiresAt, rpm, tpm, budget: budgetFlags(values) };
}

/** `--budget-usd`/`--budget-period` as the API's `budget`; the server (or the store) checks the period. */
function budgetFlags(values: Values): NewKeyOptions["budget"] {
  if (values["budget-usd"] === undefined) return undefined;
  const usd = /^\d+(\.\d{1,6})?$/.test(values["budget-usd"].trim()) ? Number(values["budget-usd"]) : NaN;
  if (!(usd > 0)) fail(`--budget-usd takes USD above 0, such as 10 or 2.5 (got '${values["budget-usd"]}')`);
  return { limit_usd: usd, period: values["budget-period"] };
}

/** The project's budget and what it spent in the current period. */
function printBudget(view: ProjectBudgetView, project: string, json: boolean): void {
  if (json) return void process.stdout.write(JSON.stringify({ project_id: project, ...view }) + "\n");
  const resets = view.resets_at === null ? "never resets" : `resets ${new Date(view.resets_at * 1000).toISOString()}`;
  process.stdout.write(
    view.budget
      ? `Project ${project}: budget $${view.budget.limit_usd} per ${view.budget.period}${view.default ? " (the deployment's default)" : ""}, $${view.spent_usd} spent, ${resets}.\n`
      : `Project ${project} has no budget; $${view.spent_usd} spent in all.\n`,
  );
}

/** The environment's problems, one per line, are a usage error too (exit 2), as for the server. */
function configOrExit(): ServiceConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`keys: fix these environment variables\n${err.message}\n`);
    process.exit(2);
  }
}

async function printToken(values: Values): Promise<void> {
  const role = values.role;
  if (!isRole(role)) fail(`--role takes one of ${MEMBER_ROLES.join(", ")} (got '${role}')`);
  const ttlSeconds = parseTtl(values.ttl);
  if (ttlSeconds === undefined) fail(`--ttl takes seconds or 15m, 12h, 7d, at most 30d (got '${values.ttl}')`);
  if (!values.user?.trim()) fail("--user takes a user id");
  const config = configOrExit();
  const { token, expiresAt } = await mintToken(config, {
    project: values.project,
    role,
    ttlSeconds,
    user: values.user.trim(),
  });
  if (values.json) {
    process.stdout.write(
      JSON.stringify({ token, project_id: values.project, role, sub: values.user.trim(), expires_at: expiresAt }) +
        "\n",
    );
  } else {
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `${role} of project ${values.project}, valid until ${new Date(expiresAt * 1000).toISOString()}\n`,
    );
  }
}

/** JSON configs indented for pasting; the Inspector's is a command line. */
const mcpText = (config: unknown) =>
  (typeof config === "string" ? config : JSON.stringify(config, null, 2)).replace(/^/gm, "    ");

async function serverUrlIfUp(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1500) });
    return res.ok ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A key's limit as it applies: its own, else the deployment's (RATE_LIMIT_RPM/TPM, as this
 * environment sets them: the server's when the CLI goes through it on the same machine), else none.
 */
function limitText(own: number | null, deployment: number | undefined, unit: string, variable: string): string {
  if (own !== null) return `${own} ${unit}`;
  return deployment === undefined ? `unlimited ${unit}` : `${deployment} ${unit} (${variable}, for every key)`;
}

/** The new key with its secret, once: one JSON object, or text with the MCP configuration for `client`. */
function printCreated(k: CreatedKey, project: string, client: McpClient, json: boolean, config: ServiceConfig): void {
  if (json) {
    const { id, name, secret, base_url, mcp_json, mcp_configs, created_at, expires_at, rate_limits, budget } = k;
    process.stdout.write(
      JSON.stringify({
        id,
        name,
        secret,
        base_url,
        mcp_json,
        mcp_configs,
        created_at,
        expires_at,
        rate_limits,
        budget,
      }) + "\n",
    );
    return;
  }
  process.stdout.write(
    `Created API key ${k.id} ("${k.name}") in project ${project}.\n\n` +
      `  API secret key (shown once, store it now): ${k.secret}\n` +
      `  API base URL: ${k.base_url}\n` +
      `  Limits per minute: ${limitText(k.rate_limits.rpm, config.rateLimitRpm, "requests", "RATE_LIMIT_RPM")}, ` +
      `${limitText(k.rate_limits.tpm, config.rateLimitTpm, "tokens", "RATE_LIMIT_TPM")}\n` +
      `  Budget: ${k.budget ? `$${k.budget.limit_usd} per ${k.budget.period}` : "none of its own"}\n\n` +
      `  MCP configuration (${client}):\n${mcpText(k.mcp_configs[client])}\n`,
  );
}

/** The project's keys: one JSON list, or a line per key. */
function printList(keys: ListedKey[], project: string, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify({ object: "list", data: keys }) + "\n");
  } else if (keys.length === 0) {
    process.stdout.write(`No API keys in project ${project}.\n`);
  } else {
    const when = (t: number | null) => (t === null ? "never" : new Date(t * 1000).toISOString());
    for (const k of keys) {
      process.stdout.write(
        `${k.id}\t${k.name}\t${k.redacted_value}\tcreated ${when(k.created_at)}\tlast used ${when(k.last_used_at)}\texpires ${when(k.expires_at)}\tby ${k.created_by}\n`,
      );
    }
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseCommandLine();
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.version) {
    process.stdout.write(`agentport ${SERVICE_VERSION}\n`);
    return;
  }
  const [command, ...rest] = positionals;
  if (!COMMANDS.includes(command ?? "")) fail(command ? `unknown command '${command}'` : "missing command");
  // The server refuses a token or key without a project: say so here, not with a token that cannot work.
  if (!values.project?.trim()) fail("--project takes a project id (it may not be empty)");
  if (command === "token") return printToken(values);
  const client = values.client as McpClient;
  if (!MCP_CLIENTS.includes(client)) fail(`unknown --client '${values.client}' (known: ${MCP_CLIENTS.join(", ")})`);
  const keyOptions = command === "create" ? newKeyOptions(values) : {};
  const config = configOrExit();
  const project = values.project;

  // The embedded store may be held by a running server: find it by its record in the data dir
  // (or AGENTPORT_URL), and go through it. With DATABASE_URL the store is shared anyway.
  const holder = config.databaseUrl
    ? undefined
    : process.env.AGENTPORT_URL
      ? { url: process.env.AGENTPORT_URL }
      : runningServer(config.dataDir);
  const server = holder?.url ? await serverUrlIfUp(holder.url) : undefined;
  if (holder && !server) {
    throw new Error(
      `a server holds ${config.dataDir} but does not answer${holder.url ? ` at ${holder.url}` : " yet"}; retry once it is up, or stop it`,
    );
  }
  const ops: KeyOps = server ? keysOverHttp(server, config) : await keysOnStore(config);
  try {
    switch (command) {
      case "create": {
        if (!values.name?.trim()) fail("create needs --name NAME");
        printCreated(await ops.create(project, values.name.trim(), keyOptions), project, client, values.json, config);
        break;
      }
      case "list": {
        printList(await ops.list(project), project, values.json);
        break;
      }
      case "delete": {
        const id = rest[0];
        if (!id) fail("delete needs a KEY_ID");
        if (!(await ops.remove(project, id))) {
          process.stderr.write(`No API key ${id} in project ${project}.\n`);
          process.exitCode = 1;
        } else if (values.json) {
          process.stdout.write(JSON.stringify({ id, deleted: true }) + "\n");
        } else {
          process.stdout.write(`Revoked API key ${id}: it is refused from the next request on.\n`);
        }
        break;
      }
      case "usage": {
        const days = Number(values.days);
        if (!(Number.isInteger(days) && days > 0)) fail("--days takes a whole number of days, such as 7");
        const today = Math.floor(Date.now() / 86_400_000) * 86_400;
        const since = today - (days - 1) * 86_400;
        const names = new Map((await ops.list(project)).map((k) => [k.id, k.name]));
        const rows = summarize(await ops.usage(project, since), names, await ops.costs(project, since));
        if (values.json) {
          process.stdout.write(JSON.stringify({ object: "list", start_time: since, data: rows }) + "\n");
        } else if (rows.length === 0) {
          process.stdout.write(
            `No completions in project ${project} since ${new Date(since * 1000).toISOString().slice(0, 10)}.\n`,
          );
        } else {
          process.stdout.write(
            `Completions in project ${project} since ${new Date(since * 1000).toISOString().slice(0, 10)} (UTC), per key and model:\n\n${usageTable(rows)}\n`,
          );
        }
        break;
      }
      case "budget": {
        const asked = values.remove ? null : budgetFlags(values);
        printBudget(await ops.budget(project, asked), project, values.json);
        break;
      }
      default:
        fail(command ? `unknown command '${command}'` : "missing command");
    }
  } finally {
    await ops.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`keys: ${err.message}\n`);
  process.exit(1);
});
