/** The SSE writer's response head: the caller's headers once each, the stream's own winning. */
import { once } from "node:events";
import { createServer, get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SseWriter } from "../../service/src/sse/sse-writer.js";

describe("SseWriter response head", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      const sse = new SseWriter(res, {
        heartbeatMs: 60_000,
        onClientGone: { stop() {} },
        // As a reply's headers may arrive: a content type set before the stream began, a list, a number, an unset one.
        headers: {
          "content-type": "application/json",
          "set-cookie": ["a=1", "b=2"],
          "x-request-id": "req_1",
          "x-count": 3,
          "x-unset": undefined,
        },
      });
      sse.data('{"n":1}');
      sse.end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends each header once: the caller's, then the stream's own in place of any of the same name", async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = get(url, resolve).on("error", reject);
      req.setTimeout(5_000, () => req.destroy(new Error("no response head within 5 s")));
    });
    let body = "";
    for await (const chunk of res) body += chunk;
    const names = res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.filter((n) => n === "content-type")).toHaveLength(1);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["x-accel-buffering"]).toBe("no");
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(res.headers["x-request-id"]).toBe("req_1");
    expect(res.headers["x-count"]).toBe("3");
    expect(names).not.toContain("x-unset");
    expect(body).toBe('data: {"n":1}\n\n');
  });
});
