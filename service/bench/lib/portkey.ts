/**
 * Portkey's open-source AI gateway (`@portkey-ai/gateway`, a devDependency) as a peer in the chat
 * bench: its own server, in its own process, in front of the same upstream stub, reached the way
 * its docs route to a self-hosted OpenAI-compatible host (`x-portkey-provider: openai` and
 * `x-portkey-custom-host`). It listens on the port it is given (it takes no port 0).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer, type AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";

export interface Portkey {
  url: string;
  process: ChildProcess;
  /** Headers that send a chat request through it to `upstream`. */
  headers(apiKey: string): Record<string, string>;
  /** Why one request does not get a complete answer through it (status, body, its log), or undefined when it does. */
  failure(body: string, stream: boolean): Promise<string | undefined>;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });

/** Its server script, from its package (which exports no such subpath, so found beside package.json). */
function serverScript(): string {
  const pkg = createRequire(import.meta.url).resolve("@portkey-ai/gateway/package.json");
  return join(dirname(pkg), "build/start-server.js");
}

export async function startPortkey(upstream: string): Promise<Portkey> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript(), `--port=${port}`, "--headless"], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const url = `http://127.0.0.1:${port}`;
  // Bounded: it prints a banner after a 1 s spinner, so readiness is asked of its root route.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`Portkey gateway exited with ${child.exitCode}: ${stderr}`);
    const up = await request(url).then(
      (r) => r.body.text().then(() => r.statusCode === 200),
      () => false,
    );
    if (up) break;
    if (i >= 100) throw new Error(`Portkey gateway did not answer on ${url} within 20 s: ${stderr}`);
    await sleep(200);
  }
  const headers = (apiKey: string) => ({
    "content-type": "application/json",
    authorization: `Bearer ${apiKey}`,
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": upstream,
  });
  return {
    url,
    process: child,
    headers,
    async failure(body, stream) {
      const logged = stderr.length;
      const r = await request(`${url}/v1/chat/completions`, { method: "POST", headers: headers("bench"), body });
      const text = await r.body.text();
      if (r.statusCode === 200 && (stream ? text.includes("data: [DONE]") : text.includes('"choices"')))
        return undefined;
      await sleep(100); // its log line may follow the answer
      const why = /TypeError[^\n]*|Error[^\n]*/.exec(stderr.slice(logged))?.[0];
      return `HTTP ${r.statusCode} ${text.slice(0, 120)}${why ? ` (its log: ${why.trim()})` : ""}`;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((res) => child.once("exit", res));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
