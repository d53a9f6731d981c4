/**
 * Runs a private nginx as a child process: config, pid, logs and temp files all live in a
 * fresh temp directory; it listens on 127.0.0.1 only and is stopped by its pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { renderNginxConfig, type GatewayRoute } from "./nginx-config.js";
import type { Limits } from "./limits.js";
import { waitForPort } from "./ports.js";

export const DEFAULT_NGINX = "nginx";

export interface RunningGateway {
  pid: number;
  dir: string;
  config: string;
  routes: GatewayRoute[];
  /** The error log so far (for diagnostics). */
  errorLog: () => string;
  /** The access log so far. */
  accessLog(): string;
  stop(): Promise<void>;
}

export interface StartGatewayOptions {
  routes: GatewayRoute[];
  /** Already scaled. */
  limits: Limits;
  /** The nginx binary (default: `nginx` on PATH). */
  nginx?: string;
  /** Keep the directory after stop (to read logs). */
  keepDir?: boolean;
}

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

export async function startGateway(opts: StartGatewayOptions): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), "agentport-gateway-"));
  // Workers may run as an unprivileged user when started by root: they must reach the temp paths.
  chmodSync(dir, 0o755);
  const config = renderNginxConfig({ dir, routes: opts.routes, limits: opts.limits });
  writeFileSync(join(dir, "nginx.conf"), config);

  let exited = false;
  let stderr = "";
  // -e: the startup error log goes to DIR too, never to the system's log directory.
  const child: ChildProcess = spawn(
    opts.nginx ?? DEFAULT_NGINX,
    ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log"), "-g", "daemon off;"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  child.once("exit", () => (exited = true));
  try {
    // `once(child, "spawn")` rejects with the spawn error itself (ENOENT when nginx is missing).
    await once(child, "spawn");
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot start nginx (${(err as Error).message}); install it (Debian: apt-get install -y nginx)`, {
      cause: err,
    });
  }

  try {
    for (const r of opts.routes) await waitForPort(r.listenPort, () => !exited);
  } catch (err) {
    child.kill("SIGKILL");
    const log = `${stderr}${read(join(dir, "error.log"))}`;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx did not come up: ${(err as Error).message}\n${log}`, { cause: err });
  }

  const pid = child.pid!;
  return {
    pid,
    dir,
    config,
    routes: opts.routes,
    errorLog: () => read(join(dir, "error.log")),
    accessLog: () => read(join(dir, "access.log")),
    async stop() {
      if (!exited) {
        const done = once(child, "exit");
        // SIGQUIT is nginx's graceful stop; SIGTERM is fast stop: open streams are not waited for.
        process.kill(pid, "SIGTERM");
        await done;
      }
      if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
