/**
 * The access line is written without pino's redaction (for speed), so it must be unable to carry
 * a credential: only the allow-listed fields reach it, and the allow-list holds no secret-shaped name.
 */
import { Writable } from "node:stream";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { ACCESS_LINE_SCHEMA, secretShapedFields } from "../../service/src/http/access-log.js";
import { openTestStore } from "../helpers/store.js";

describe("access line redaction", () => {
  it("the access line's allow-list holds no secret-shaped field", () => {
    expect(secretShapedFields(ACCESS_LINE_SCHEMA)).toEqual([]);
  });

  it("a secret-shaped field added to the allow-list is named by the check", () => {
    const text = { type: "string" };
    const widened = {
      properties: {
        ...ACCESS_LINE_SCHEMA.properties,
        req: {
          properties: {
            ...ACCESS_LINE_SCHEMA.properties.req.properties,
            headers: { properties: { authorization: text, cookie: text, "x-api-key": text } },
          },
        },
        password: text,
        accessToken: text,
        apiKey: text,
      },
    };
    expect(secretShapedFields(widened).sort()).toEqual([
      "accessToken",
      "apiKey",
      "password",
      "req.headers.authorization",
      "req.headers.cookie",
      "req.headers.x-api-key",
    ]);
  });

  it("a request's credentials do not reach its access line", async () => {
    let output = "";
    const sink = new Writable({
      write(chunk, _enc, done) {
        output += String(chunk);
        done();
      },
    });
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-log-")),
      JWT_SECRET: "s".repeat(64),
      LOG_LEVEL: "info",
    });
    const store = await openTestStore("pglite");
    const app = await buildApp({ config, db: store.db, logger: { level: "info", stream: sink } });
    const { secret } = await app.apiKeys.create({ projectId: "proj_a", name: "k", createdBy: "u" });
    const res = await app.inject({
      method: "GET",
      url: "/v1/models",
      headers: {
        authorization: `Bearer ${secret}`,
        cookie: "session=cookie-secret-value",
        "x-api-key": "header-secret-value",
        "proxy-authorization": "Basic cHJveHktc2VjcmV0",
      },
    });
    await app.close();
    await store.drop();

    expect(res.statusCode).toBe(200);
    const line = output
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === res.headers["x-request-id"]);
    expect(line).toMatchObject({ msg: "request completed", res: { statusCode: 200 } });
    const allowed = ["level", "time", "pid", "hostname", ...Object.keys(ACCESS_LINE_SCHEMA.properties)];
    expect(Object.keys(line).filter((k) => !allowed.includes(k))).toEqual([]);
    for (const value of [secret, "cookie-secret-value", "header-secret-value", "cHJveHktc2VjcmV0"])
      expect(output).not.toContain(value);
  });
});
