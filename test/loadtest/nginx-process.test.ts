/** The private nginx's lifecycle: a start that fails leaves no directory behind. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGateway } from "../../loadtest/gateway/nginx-process.js";
import { freePort } from "../../loadtest/gateway/ports.js";
import { defaultLimits } from "../../infra/limits.js";

let scratch: string;
let savedTmp: string | undefined;
beforeEach(() => {
  // A private temp directory, so what the gateway leaves behind is all that is in it.
  scratch = mkdtempSync(join(tmpdir(), "gateway-test-"));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

describe("gateway process", () => {
  const routes = async () => [{ name: "main", listenPort: await freePort(), upstreamPort: await freePort() }];

  it("removes its directory when the nginx binary cannot be started", async () => {
    await expect(
      startGateway({ routes: await routes(), limits: defaultLimits(), nginx: join(scratch, "no-such-nginx") }),
    ).rejects.toThrow(/cannot start nginx/);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("removes its directory when nginx exits before it listens", async () => {
    await expect(startGateway({ routes: await routes(), limits: defaultLimits(), nginx: "false" })).rejects.toThrow(
      /nginx did not come up/,
    );
    expect(readdirSync(scratch)).toEqual([]);
  });
});
