/** A private redis-server for fault tests (paused, killed, restarted) that must not touch the shared one. */
import { spawn, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";

export interface PrivateRedis {
  port: number;
  url: string;
  process: ChildProcess;
  /** Kills the server (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
}

/** Starts redis-server on `port` (no persistence) and waits, bounded, until it answers PING. */
export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 500,
  });
  probe.on("error", () => {});
  try {
    for (let i = 0; ; i++) {
      const up = await probe.connect().then(
        () => probe.ping(),
        () => undefined,
      );
      if (up === "PONG") break;
      if (i >= 100) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    probe.disconnect();
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    port,
    url,
    process: child,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
