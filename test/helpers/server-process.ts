/** The real entry point (`service/src/server.ts`) in a child process, for tests of the process itself. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

export const TSX = join("node_modules", ".bin", "tsx");

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts the server with `env` (PORT 0 unless given) and resolves once it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  // node itself, with tsx as a loader (as `npm start` runs it): a signal reaches the server, and a
  // SIGKILL from a test's cleanup kills it, where the tsx CLI would leave its own child orphaned.
  const child = spawn(process.execPath, ["--import", "tsx", "service/src/server.ts"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", () => reject(new Error(`server exited early: ${out}`)));
  });
  child.stdout.resume();
  return { child, url, exited };
}
