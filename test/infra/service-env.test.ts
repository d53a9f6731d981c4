/**
 * What the stack writes into the API's environment is what the service accepts at start: the
 * service refuses a bad variable with exit 2, so a value the stack lets through would be a pod that
 * crash-loops after a green `pulumi up`.
 */
import { describe, expect, it } from "vitest";
import { serviceSettings } from "../../infra/api/settings.js";
import { loadConfig } from "../../service/src/config.js";
import { STACKS, specOf } from "./fixtures.js";

// The Secret's part of the environment, in the shapes the program writes (values stand in).
const SECRET_ENV = {
  DATABASE_URL: "postgresql://agentport_api:pw@db.internal:5432/agentport?sslmode=verify-full",
  JWT_SECRET: "x".repeat(64),
  REDIS_URL: "rediss://default:pw@cache.internal:6380",
  LLM_API_KEY: "sk-test",
};

describe("the service accepts the environment each stack gives it", () => {
  it.each(STACKS)("%s", (stack) => {
    const { env } = serviceSettings(specOf(stack));
    const config = loadConfig({ ...env, ...SECRET_ENV });
    // Read, not ignored: the stack's own values reach the service.
    expect(config.heartbeatSeconds).toBe(Number(env.HEARTBEAT_SECONDS));
    expect(config.jsonBodyLimit).toBe(Number(env.JSON_BODY_LIMIT));
  });

  it("and with the stack's largest per-key limits", () => {
    const { env } = serviceSettings(
      specOf("prod-aws", (r) => Object.assign(r.api, { rateLimitRpm: 2 ** 31 - 1, rateLimitTpm: 2 ** 31 - 1 })),
    );
    expect(loadConfig({ ...env, ...SECRET_ENV })).toMatchObject({
      rateLimitRpm: 2 ** 31 - 1,
      rateLimitTpm: 2 ** 31 - 1,
    });
  });

  it("and with the stack's bounds of the responses retention", () => {
    for (const days of [0, 36_500]) {
      const { env } = serviceSettings(
        specOf("prod-aws", (r) => Object.assign(r.api, { responsesRetentionDays: days })),
      );
      expect(loadConfig({ ...env, ...SECRET_ENV }).responsesRetentionDays).toBe(days);
    }
  });
});
