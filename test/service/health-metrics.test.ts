import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";

describe("health and metrics", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp("pglite");
  });
  afterAll(() => t.close());

  it("liveness and readiness answer without a key", async () => {
    expect((await t.app.inject("/health")).json()).toEqual({ status: "ok" });
    expect((await t.app.inject("/health/ready")).json()).toEqual({ status: "ready", store: "pglite" });
  });

  it("readiness fails with 503 in the envelope when the store does not answer", async () => {
    const broken = await buildTestApp("pglite");
    await broken.store.db.close();
    const res = await broken.app.inject("/health/ready");
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ type: "server_error", code: "service_unavailable" });
    await broken.app.close();
  });

  it("counts requests by route pattern, not by URL", async () => {
    const { secret } = await t.createKey();
    await t.app.inject({ url: "/v1/organization/projects/p-123/api_keys/key_abc" });
    await t.app.inject({ url: "/v1/none", headers: { authorization: `Bearer ${secret}` } });
    const text = (await t.app.inject("/metrics")).body;
    expect(text).toMatch(/agentport_http_requests_total\{method="GET",route="\/v1\/organization\/projects\/:project_id\/api_keys\/:key_id",status="401"\} 1/);
    expect(text).not.toContain("p-123");
    expect(text).toContain("process_resident_memory_bytes");
  });
});
