/** Loopback port helpers shared by the gateway and the local target. */
import { createServer, connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** A port the kernel just handed out on 127.0.0.1 (free at the time of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Resolves once something accepts connections on the port. Bounded by `timeoutMs`, and stops
 * early when `alive()` says the process meant to listen is gone.
 */
export async function waitForPort(port: number, alive: () => boolean, timeoutMs = 10_000, stepMs = 50): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (!alive()) throw new Error(`the process meant to listen on ${port} exited`);
    if (await canConnect(port)) return;
    await sleep(stepMs);
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}
