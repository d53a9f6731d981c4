import { Writable } from "node:stream";
import { mkdtempSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { buildApp, REDACTED_LOG_PATHS } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { signMemberToken } from "../../service/src/domain/member-token.js";
import { openTestStore } from "../helpers/store.js";

/** An app logging at info into parsed lines (extra logger options, such as serializers, merged in). */
async function appLoggingAtInfo(loggerOptions: Record<string, unknown> = {}) {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-log-")),
    JWT_SECRET: "s".repeat(64),
    LOG_LEVEL: "info",
  });
  const store = await openTestStore("pglite");
  const app = await buildApp({ config, db: store.db, logger: { level: "info", stream: sink, ...loggerOptions } });
  return { lines, config, store, app };
}

describe("structured logs", () => {
  it("carry a request id and never a secret, a key or a member token", { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-log-")),
      JWT_SECRET: "s".repeat(64),
      LOG_LEVEL: "debug",
    });
    const store = await openTestStore("pglite");
    const app = await buildApp({
      config,
      db: store.db,
      logger: {
        level: "debug",
        stream: sink,
        redact: { paths: REDACTED_LOG_PATHS, censor: "[redacted]" },
        serializers: { req: (r) => ({ method: r.method, url: r.url, headers: r.headers }) },
      },
    });
    const token = await signMemberToken({ userId: "u1", projectId: "default", role: "owner" }, config.jwtSecret);
    const created = await app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: { authorization: `Bearer ${token}` },
      payload: { name: "k" },
    });
    const secret = created.json().secret as string;
    const used = await app.inject({
      method: "GET",
      url: "/v1/none",
      headers: { authorization: `Bearer ${secret}`, "x-request-id": "req_fixed_1" },
    });
    expect(used.headers["x-request-id"]).toBe("req_fixed_1");
    await app.inject({ method: "GET", url: "/v1/none", headers: { authorization: `Bearer ${secret}x` } });
    await app.close();
    await store.drop();

    const all = lines.join("\n");
    expect(lines.length).toBeGreaterThan(4);
    expect(all).toContain("req_fixed_1");
    expect(all).toContain("[redacted]"); // the headers were logged, with the credential censored
    expect(all).not.toContain(secret);
    expect(all).not.toContain(secret.slice(3, 20));
    expect(all).not.toContain(token);
    expect(all).not.toContain(config.jwtSecret);
  });

  it("log a client that hangs up mid-upload at info, not as a storage failure at error, and keep nothing", async () => {
    const { lines, store, app } = await appLoggingAtInfo();
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { secret } = await app.apiKeys.create({ projectId: "default", name: "k", createdBy: "u" });
    const port = (app.server.address() as { port: number }).port;

    const boundary = "agentportboundary";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const socket = connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(
      `POST /v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(256 * 1024, 1));
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy(); // the client goes away mid-file

    await vi.waitFor(() => expect(lines.some((l) => l.code === "client_closed_request")).toBe(true), {
      timeout: 10_000,
      interval: 50,
    });
    const abort = lines.find((l) => l.code === "client_closed_request")!;
    expect(abort.level).toBe(30);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(
      (await app.inject({ url: "/v1/files", headers: { authorization: `Bearer ${secret}` } })).json().data,
    ).toEqual([]);
    await app.close();
    await store.drop();
  });

  it("write one access line per request, at its end: method, URL, status, time, key and project", async () => {
    const { lines, store, app } = await appLoggingAtInfo();
    const { record, secret } = await app.apiKeys.create({ projectId: "proj_a", name: "k", createdBy: "u" });
    const res = await app.inject({ method: "GET", url: "/v1/models", headers: { authorization: `Bearer ${secret}` } });
    await app.inject({ method: "GET", url: "/v1/models" });
    await app.close();
    await store.drop();

    const ours = lines.filter((l) => l.reqId === res.headers["x-request-id"]);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({
      level: 30,
      msg: "request completed",
      req: { method: "GET", url: "/v1/models" },
      res: { statusCode: 200 },
      keyId: record.id,
      projectId: "proj_a",
    });
    expect(ours[0].responseTime).toBeGreaterThan(0);
    const refused = lines.filter((l) => l.msg === "request completed" && l.res?.statusCode === 401);
    expect(refused).toHaveLength(1);
    expect(refused[0].keyId).toBeUndefined();
    expect(lines.filter((l) => l.msg === "incoming request")).toEqual([]);
  });

  it("write the access line pino would write: same fields, order and values", async () => {
    // Fastify's own request serializer, given explicitly: that app's access lines go through pino.
    const fastifyReq = (r: any) => ({
      method: r.method,
      url: r.url,
      version: r.headers?.["accept-version"],
      host: r.host,
      remoteAddress: r.ip,
      remotePort: r.socket?.remotePort,
    });
    const lineOf = async (loggerOptions: Record<string, unknown>) => {
      const { lines, store, app } = await appLoggingAtInfo(loggerOptions);
      await app.listen({ host: "127.0.0.1", port: 0 });
      const { secret } = await app.apiKeys.create({ projectId: "proj_a", name: "k", createdBy: "u" });
      const res = await fetch(
        `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/models?x=%22q%22`,
        { headers: { authorization: `Bearer ${secret}`, "accept-version": "2" } },
      );
      await res.arrayBuffer();
      await app.close();
      await store.drop();
      const line = lines.find((l) => l.reqId === res.headers.get("x-request-id"))!;
      const { time, responseTime, reqId, keyId, req, ...rest } = line;
      expect(time).toBeGreaterThan(Date.now() - 60_000);
      expect(responseTime).toBeGreaterThan(0);
      expect(reqId).toMatch(/^req_/);
      expect(keyId).toMatch(/^key_/);
      expect(req.host).toMatch(/^127\.0\.0\.1:\d+$/);
      return { keys: Object.keys(line), req: { ...req, host: "checked", remotePort: typeof req.remotePort }, rest };
    };
    const ours = await lineOf({});
    expect(ours).toEqual(await lineOf({ serializers: { req: fastifyReq } }));
    expect(ours.keys).toEqual([
      "level",
      "time",
      "pid",
      "hostname",
      "reqId",
      "req",
      "res",
      "responseTime",
      "keyId",
      "projectId",
      "msg",
    ]);
    expect(ours.req).toEqual({
      method: "GET",
      url: "/v1/models?x=%22q%22",
      version: "2",
      host: "checked",
      remoteAddress: "127.0.0.1",
      remotePort: "number",
    });
    expect(ours.rest).toEqual({
      level: 30,
      pid: process.pid,
      hostname: hostname(),
      res: { statusCode: 200 },
      projectId: "proj_a",
      msg: "request completed",
    });
  });
});
