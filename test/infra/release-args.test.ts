import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { createReleaseArgs } from "../../infra/platform/release.js";
import { specOf } from "./fixtures.js";

/** An Output's value and whether it is secret, outside a Pulumi run. */
async function unwrap(value: unknown): Promise<{ value: unknown; secret: boolean }> {
  const out = pulumi.output(value) as pulumi.Output<unknown>;
  return { value: await new Promise((resolve) => out.apply(resolve)), secret: await pulumi.isSecret(out) };
}

describe("platform release arguments", () => {
  const chart = specOf("prod-aws").platform;

  it("installs from a Helm repository with its own credentials, the password secret", async () => {
    const args = createReleaseArgs(
      { ...chart, repository: "https://charts.example.com", chartCredentials: { username: "ci", password: "p" } },
      {},
    );
    expect(args.chart).toBe(chart.chart);
    expect(args.version).toBe(chart.version);
    const repo = args.repositoryOpts as { repo: string; username: string; password: unknown };
    expect(repo.repo).toBe("https://charts.example.com");
    expect(repo.username).toBe("ci");
    expect(await unwrap(repo.password)).toEqual({ value: "p", secret: true });
  });

  it("names an OCI chart by its full reference, with no repository options", () => {
    const args = createReleaseArgs({ ...chart, repository: "oci://registry.example.com/charts/" }, {});
    expect(args.chart).toBe(`oci://registry.example.com/charts/${chart.chart}`);
    expect(args.repositoryOpts).toBeUndefined();
  });

  it("rolls back a failed install or upgrade when atomic, and passes the values as one secret", async () => {
    const args = createReleaseArgs({ ...chart, atomic: true }, { a: { b: 1 } });
    expect({ atomic: args.atomic, cleanupOnFail: args.cleanupOnFail, maxHistory: args.maxHistory }).toEqual({
      atomic: true,
      cleanupOnFail: true,
      maxHistory: 10,
    });
    expect(await unwrap(args.values)).toEqual({ value: { a: { b: 1 } }, secret: true });
    expect(createReleaseArgs({ ...chart, atomic: false }, {}).cleanupOnFail).toBe(false);
  });
});
