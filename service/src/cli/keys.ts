/**
 * `npm run keys -- create --name NAME [--project ID] [--json]`, `keys list [--project ID] [--json]`,
 * `keys delete ID [--project ID]`, `keys usage [--days N] [--project ID] [--json]`: API keys and
 * their completions usage, for bootstrap and scripts.
 *
 * With DATABASE_URL the CLI works on the store directly. With the embedded store, PGlite holds
 * its data dir exclusively: when the server is up the CLI goes through its HTTP API with a
 * short-lived owner token signed with the same JWT secret; otherwise it opens the store itself.
 */
import { SERVICE_VERSION } from "../version.js";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { MCP_CLIENTS, type McpClient } from "../domain/mcp-configs.js";
import { runningServer } from "../server-record.js";
import { keysOverHttp, keysOnStore, type KeyOps } from "./key-ops.js";
import { summarize, usageTable } from "./usage-summary.js";

const USAGE = `usage: npm run keys -- create --name NAME [--project ID] [--expires-at UNIX_SECONDS] [--client CLIENT] [--json]
       npm run keys -- list [--project ID] [--json]
       npm run keys -- delete KEY_ID [--project ID] [--json]
       npm run keys -- usage [--days N] [--project ID] [--json]

  -n, --name NAME               the new key's name (create)
      --expires-at T            the key is refused after T, Unix seconds (create; default: never)
      --days N                  usage of the last N days, today included (usage; default: 30)
  -p, --project ID              the project (default: default)
      --client CLIENT           the MCP configuration for one client (create): ${MCP_CLIENTS.join(", ")}
      --json                    print one JSON document
  -h, --help                    this text
      --version                 the agentport version
(use 'npm run -s keys …' to keep npm's own banner out of --json output)`;

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
        project: { type: "string", short: "p", default: "default" },
        json: { type: "boolean", default: false },
        client: { type: "string", default: "generic" },
        days: { type: "string", default: "30" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
}

/** JSON configs indented for pasting; the Inspector's is a command line. */
const mcpText = (config: unknown) => (typeof config === "string" ? config : JSON.stringify(config, null, 2)).replace(/^/gm, "    ");

async function serverUrlIfUp(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1500) });
    return res.ok ? url : undefined;
  } catch {
    return undefined;
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
  if (!["create", "list", "delete", "usage"].includes(command ?? "")) fail(command ? `unknown command '${command}'` : "missing command");
  const client = values.client as McpClient;
  if (!MCP_CLIENTS.includes(client)) fail(`unknown --client '${values.client}' (known: ${MCP_CLIENTS.join(", ")})`);
  const config = loadConfig();
  const project = values.project!;

  // The embedded store may be held by a running server: find it by its record in the data dir
  // (or AGENTPORT_URL), and go through it. With DATABASE_URL the store is shared anyway.
  const holder = config.databaseUrl ? undefined : process.env.AGENTPORT_URL ? { url: process.env.AGENTPORT_URL } : runningServer(config.dataDir);
  const server = holder?.url ? await serverUrlIfUp(holder.url) : undefined;
  if (holder && !server) {
    throw new Error(`a server holds ${config.dataDir} but does not answer${holder.url ? ` at ${holder.url}` : " yet"}; retry once it is up, or stop it`);
  }
  const ops: KeyOps = server ? keysOverHttp(server, config) : await keysOnStore(config);
  try {
    switch (command) {
      case "create": {
        if (!values.name?.trim()) fail("create needs --name NAME");
        const expiresAt = values["expires-at"] === undefined ? undefined : Number(values["expires-at"]);
        if (expiresAt !== undefined && !(Number.isInteger(expiresAt) && expiresAt > 0)) fail("--expires-at takes Unix seconds, such as 1893456000");
        const k = await ops.create(project, values.name.trim(), expiresAt);
        if (values.json) {
          process.stdout.write(JSON.stringify({ id: k.id, name: k.name, secret: k.secret, base_url: k.base_url, mcp_json: k.mcp_json, mcp_configs: k.mcp_configs, created_at: k.created_at, expires_at: k.expires_at }) + "\n");
        } else {
          process.stdout.write(
            `Created API key ${k.id} ("${k.name}") in project ${project}.\n\n` +
              `  API secret key (shown once, store it now): ${k.secret}\n` +
              `  API base URL: ${k.base_url}\n\n  MCP configuration (${client}):\n${mcpText(k.mcp_configs[client])}\n`,
          );
        }
        break;
      }
      case "list": {
        const keys = await ops.list(project);
        if (values.json) {
          process.stdout.write(JSON.stringify({ object: "list", data: keys }) + "\n");
        } else if (keys.length === 0) {
          process.stdout.write(`No API keys in project ${project}.\n`);
        } else {
          const when = (t: number | null) => (t === null ? "never" : new Date(t * 1000).toISOString());
          for (const k of keys) {
            process.stdout.write(`${k.id}\t${k.name}\t${k.redacted_value}\tcreated ${when(k.created_at)}\tlast used ${when(k.last_used_at)}\texpires ${when(k.expires_at)}\tby ${k.created_by}\n`);
          }
        }
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
        const rows = summarize(await ops.usage(project, since), names);
        if (values.json) {
          process.stdout.write(JSON.stringify({ object: "list", start_time: since, data: rows }) + "\n");
        } else if (rows.length === 0) {
          process.stdout.write(`No completions in project ${project} since ${new Date(since * 1000).toISOString().slice(0, 10)}.\n`);
        } else {
          process.stdout.write(`Completions in project ${project} since ${new Date(since * 1000).toISOString().slice(0, 10)} (UTC), per key and model:\n\n${usageTable(rows)}\n`);
        }
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
