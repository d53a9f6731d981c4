import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { redisUrl } from "../../infra/api/settings.js";
import { specOf } from "./fixtures.js";

async function unwrap(out: pulumi.Output<string> | undefined): Promise<{ value: string; secret: boolean } | undefined> {
  if (!out) return undefined;
  return { value: await new Promise<string>((resolve) => out.apply(resolve)), secret: await pulumi.isSecret(out) };
}

describe("REDIS_URL for rate limits shared by the replicas", () => {
  it("uses the managed cache over TLS with its token, as a secret", async () => {
    const url = redisUrl(specOf("prod-aws"), {
      host: "cache.example",
      port: 6379,
      username: "default",
      password: "p@ss/word",
    });
    expect(await unwrap(url)).toEqual({ value: "rediss://default:p%40ss%2Fword@cache.example:6379", secret: true });
  });

  it("uses an external cache as configured, TLS or not", async () => {
    const spec = specOf("onprem", (r) => (r.externalCache = { ...r.externalCache, useTls: false, port: 6380 }));
    expect((await unwrap(redisUrl(spec)))?.value).toMatch(/^redis:\/\/[^:]+:[^@]*@[^:]+:6380$/);
  });

  it("takes api.redisUrl over either, and has none for the in-cluster cache", async () => {
    const spec = specOf("prod-aws", (r) => (r.api.redisUrl = "rediss://u:p@own.example:6380"));
    expect(
      (await unwrap(redisUrl(spec, { host: "cache.example", port: 6379, username: "default", password: "x" })))?.value,
    ).toBe("rediss://u:p@own.example:6380");
    expect(redisUrl(specOf("local"))).toBeUndefined();
  });
});
