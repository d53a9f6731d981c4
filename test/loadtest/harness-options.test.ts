import { describe, expect, it } from "vitest";
import { parseHarnessArgs } from "../../loadtest/harness/args.js";
import { k6Env } from "../../loadtest/harness/k6-env.js";
import { resolveLimits } from "../../loadtest/harness/limits-source.js";

describe("harness options", () => {
  it("--local defaults to the local stack; flags override the stack's limits", () => {
    const opts = parseHarnessArgs([
      "--local",
      "--read-timeout-ms",
      "1000",
      "--client-body-buffer-size",
      "64k",
      "--file-max-bytes",
      "8m",
    ]);
    expect(opts.stack).toBe("local");
    const { limits, source } = resolveLimits(opts.stack, undefined, opts.overrides);
    expect(limits).toMatchObject({
      readTimeoutMs: 1000,
      writeTimeoutMs: 60_000,
      clientBodyBufferSize: "64k",
      clientBodyBufferBytes: 65536,
      fileMaxBytes: 8 * 1024 * 1024,
    });
    expect(source).toBe(
      "stack local + flags (readTimeoutMs, clientBodyBufferSize, clientBodyBufferBytes, fileMaxBytes)",
    );
  });

  it("without a stack, a deployed target is checked against the package defaults", () => {
    const opts = parseHarnessArgs(["--target", "https://api.example.com/", "--key", "ap-x"]);
    expect(opts.target).toBe("https://api.example.com");
    const { limits, source } = resolveLimits(opts.stack, undefined, opts.overrides);
    expect(source).toBe("package defaults");
    expect(limits).toMatchObject({ readTimeoutMs: 180_000, clientBodyBufferBytes: 5120 * 1024, heartbeatSeconds: 15 });
  });

  it("refuses contradictory or malformed flags with a message naming the flag", () => {
    expect(() => parseHarnessArgs([])).toThrow(/--local/);
    expect(() => parseHarnessArgs(["--local", "--target", "http://x"])).toThrow(/exclude/);
    expect(() => parseHarnessArgs(["--target", "http://127.0.0.1:1", "--key", "k", "--time-scale", "0.1"])).toThrow(
      /--local only/,
    );
    expect(() => parseHarnessArgs(["--local", "--file-max-bytes", "lots"])).toThrow(/--file-max-bytes/);
    expect(() => parseHarnessArgs(["--local", "--scenarios", "streaming,nope"])).toThrow(/unknown scenario 'nope'/);
    expect(() => parseHarnessArgs(["--target", "http://x/v1", "--key", "k"])).toThrow(/origin/);
    expect(() => parseHarnessArgs(["--local", "--member-token", "t"])).toThrow(/go together/);
  });

  it("--rates adds the rate sweep after the chosen scenarios; the sweep alone needs rates", () => {
    const opts = parseHarnessArgs(["--local", "--scenarios", "streaming", "--rates", "1,5,10", "--rate-seconds", "2"]);
    expect(opts.scenarios).toEqual(["streaming", "rate-sweep"]);
    expect([opts.rates, opts.rateSeconds]).toEqual([[1, 5, 10], 2]);
    expect(parseHarnessArgs(["--local"]).rates).toEqual([]);
    expect(parseHarnessArgs(["--local"]).scenarios).not.toContain("rate-sweep");
    expect(() => parseHarnessArgs(["--local", "--scenarios", "rate-sweep"])).toThrow(
      /rate-sweep needs --profile KIND or --rates/,
    );
    expect(() => parseHarnessArgs(["--local", "--rates", "1,fast"])).toThrow(/--rates must be a number/);
    expect(() => parseHarnessArgs(["--local", "--rates", "0"])).toThrow(/--rates must be a number >= 0.001/);
  });

  it("workload, arrivals, caps and thresholds: parsed, or refused naming the flag", () => {
    const opts = parseHarnessArgs([
      "--local",
      "--data",
      "prompt_tokens=512,output_tokens=64",
      "--arrivals",
      "poisson",
      "--warmup",
      "0",
      "--max-bytes",
      "1g",
      "--max-error-rate",
      "0.01",
      "--itl-p95-ms",
      "50",
    ]);
    expect(opts).toMatchObject({
      workload: { promptTokens: 512, outputTokens: 64 },
      streamTokens: 64,
      arrivals: "poisson",
      warmup: 0,
      maxBytes: 1024 ** 3,
      slo: { maxErrorRate: 0.01, itlP95Ms: 50 },
    });
    expect(parseHarnessArgs(["--local"])).toMatchObject({
      maxBytes: 64 * 1024 ** 2,
      dryRun: false,
      exceedCap: false,
      warmup: 2,
      arrivals: "constant",
      slo: {},
    });
    expect(() => parseHarnessArgs(["--local", "--arrivals", "bursty"])).toThrow(/--arrivals is constant or poisson/);
    expect(() => parseHarnessArgs(["--local", "--data", "prompt_tokens=0"])).toThrow(
      /--data prompt_tokens must be a whole number >= 1/,
    );
    expect(() => parseHarnessArgs(["--local", "--max-error-rate", "2"])).toThrow(
      /--max-error-rate is a share between 0 and 1/,
    );
    expect(() => parseHarnessArgs(["--local", "--max-bytes", "much"])).toThrow(/--max-bytes must be a byte size/);
  });

  it("refuses a blank number rather than reading it as 0", () => {
    expect(() => parseHarnessArgs(["--local", "--token-interval-ms", ""])).toThrow(
      /--token-interval-ms must be a number/,
    );
    expect(() => parseHarnessArgs(["--local", "--connect-timeout-ms", " "])).toThrow(
      /--connect-timeout-ms must be a number/,
    );
    expect(() => parseHarnessArgs(["--local", "--ceiling-seconds", ""])).toThrow(/--ceiling-seconds/);
  });

  it("--k6-env prints the stack's limits for the k6 scripts, never a key", () => {
    const { limits } = resolveLimits("local", undefined, {});
    const env = k6Env({ limits, baseUrl: "https://api.example.com" });
    expect(env).toMatchObject({
      BASE_URL: "https://api.example.com",
      READ_TIMEOUT_MS: "60000",
      HEARTBEAT_SECONDS: "15",
      CLIENT_BODY_BUFFER_BYTES: String(5120 * 1024),
      FILE_MAX_BYTES: String(512 * 1024 * 1024),
      STREAM_MODEL: "agentport/synthetic-20",
    });
    expect(Object.keys(env)).not.toContain("API_KEY");
  });
});
