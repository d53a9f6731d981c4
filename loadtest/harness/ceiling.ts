/**
 * The harness's own ceiling: the req/s this process drives against a bare in-process route
 * (no service, no gateway), with autocannon and with the undici client the scenarios use.
 * A target measured near these figures is limited by the tool, not by itself.
 */
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { Agent, request } from "undici";

export interface Ceiling {
  seconds: number;
  connections: number;
  autocannonRps: number;
  autocannonP99Ms: number;
  undiciRps: number;
}

async function undiciLoop(url: string, connections: number, ms: number): Promise<number> {
  const dispatcher = new Agent({ connections });
  const end = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const res = await request(url, { dispatcher });
      await res.body.dump();
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - t0;
  await dispatcher.close();
  return Math.round((done / elapsed) * 1000);
}

export async function measureCeiling(seconds = 2, connections = 32): Promise<Ceiling> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "11" });
    res.end('{"ok":true}');
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bare`;
  try {
    const result = await autocannon({ url, connections, duration: seconds });
    const undiciRps = await undiciLoop(url, connections, seconds * 1000);
    return {
      seconds,
      connections,
      autocannonRps: Math.round(result.requests.average),
      autocannonP99Ms: result.latency.p99,
      undiciRps,
    };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
