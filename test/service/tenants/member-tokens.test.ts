/**
 * Member tokens are this deployment's short-lived ones: a lifetime over the CLI's 30 days, an `iat`
 * in the future, another service's `iss` or `aud`, or no `iat` at all is refused with 401; what the
 * CLI mints (`keys token`) passes, and the CLI refuses an empty --project instead of minting a
 * token the server refuses. On the PostgreSQL server.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";

const run = promisify(execFile);
const keysCli = (env: Record<string, string>, ...args: string[]) =>
  run(join("node_modules", ".bin", "tsx"), [join("service", "src", "cli", "keys.ts"), ...args], {
    env: { ...process.env, PORT: "1", LOG_LEVEL: "silent", ...env },
    timeout: 60_000,
  });

describe("member tokens: lifetime, issue time, issuer and audience", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp("postgres");
  });
  afterAll(() => t.close());

  const now = () => Math.floor(Date.now() / 1000);
  /** A token signed with the deployment's secret, with exactly `claims` besides project and role. */
  const signed = (claims: { iat?: number; exp: number; iss?: string; aud?: string }) => {
    const jwt = new SignJWT({ project_id: "default", role: "owner", ...claims })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject("user_x");
    return jwt.sign(new TextEncoder().encode(t.config.jwtSecret));
  };
  const status = async (token: string) => {
    const res = await t.app.inject({
      url: "/v1/organization/projects/default/api_keys",
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, message: String(res.json().error?.message ?? "") };
  };
  const ours = { iss: "agentport", aud: "agentport-api" };

  it("accepts a token of this deployment within 30 days", async () => {
    expect((await status(await signed({ ...ours, iat: now(), exp: now() + 30 * 86_400 }))).status).toBe(200);
  });

  it("refuses 100-year tokens, exp 9e15, a future iat, no iat, another service's iss or aud", async () => {
    const cases: Array<[string, Parameters<typeof signed>[0], string]> = [
      ["100 years", { ...ours, iat: now(), exp: now() + 100 * 365 * 86_400 }, "exceeds 30 days"],
      ["exp 9e15", { ...ours, iat: now(), exp: 9e15 }, "exceeds 30 days"],
      ["iat in a year", { ...ours, iat: now() + 365 * 86_400, exp: now() + 366 * 86_400 }, "'iat'"],
      ["no iat", { ...ours, exp: now() + 600 }, "'iat'"],
      ["other iss", { ...ours, iss: "billing-service", iat: now(), exp: now() + 600 }, "'iss'"],
      ["other aud", { ...ours, aud: "billing-service", iat: now(), exp: now() + 600 }, "'aud'"],
      ["no aud", { iss: "agentport", iat: now(), exp: now() + 600 }, "'aud'"],
    ];
    for (const [name, claims, says] of cases) {
      const got = await status(await signed(claims));
      expect(got.status, name).toBe(401);
      expect(got.message, name).toContain(says);
    }
  });

  it("accepts an iat a few seconds ahead (clock skew), refuses one minutes ahead", async () => {
    expect((await status(await signed({ ...ours, iat: now() + 20, exp: now() + 600 }))).status).toBe(200);
    expect((await status(await signed({ ...ours, iat: now() + 300, exp: now() + 900 }))).status).toBe(401);
  });

  it("a token minted by `keys token` passes; `--project ''` is refused by the CLI", { timeout: 90_000 }, async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), JWT_SECRET: t.config.jwtSecret };
    const minted = JSON.parse((await keysCli(env, "token", "--project", "default", "--ttl", "30d", "--json")).stdout);
    expect((await status(minted.token)).status).toBe(200);
    const err = await keysCli(env, "token", "--project", "").catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2, stderr: expect.stringContaining("--project takes a project id") });
  });
});
