import { Writable } from "node:stream";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildApp, REDACTED_LOG_PATHS } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { signMemberToken } from "../../service/src/plugins/member-auth.js";
import { openTestStore } from "../helpers/store.js";

describe("structured logs", () => {
  it("carry a request id and never a secret, a key or a member token", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-log-")), JWT_SECRET: "s".repeat(64), LOG_LEVEL: "debug" });
    const store = await openTestStore("pglite");
    const app = await buildApp({
      config,
      db: store.db,
      logger: { level: "debug", stream: sink, redact: { paths: REDACTED_LOG_PATHS, censor: "[redacted]" }, serializers: { req: (r) => ({ method: r.method, url: r.url, headers: r.headers }) } },
    });
    const token = await signMemberToken({ userId: "u1", projectId: "default", role: "owner" }, config.jwtSecret);
    const created = await app.inject({ method: "POST", url: "/v1/organization/projects/default/api_keys", headers: { authorization: `Bearer ${token}` }, payload: { name: "k" } });
    const secret = created.json().secret as string;
    const used = await app.inject({ method: "GET", url: "/v1/none", headers: { authorization: `Bearer ${secret}`, "x-request-id": "req_fixed_1" } });
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
});
