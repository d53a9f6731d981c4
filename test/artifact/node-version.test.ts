/**
 * What is tested is what ships: the image's Node (the Dockerfile's `FROM node:<version>`) is the
 * `node` devDependency, which every npm script (`npm test` included) runs on from
 * node_modules/.bin, whatever Node the machine has; and `engines` is what the locked packages accept.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(join(root, file), "utf8");
const pkg = JSON.parse(read("package.json")) as { engines: { node: string }; devDependencies: Record<string, string> };
const lock = JSON.parse(read("package-lock.json")) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const shipped = pkg.devDependencies.node;

describe("the Node the tests run on", () => {
  it("is the image's: every FROM node: stage, the node devDependency and its locked version agree", () => {
    const stages = [...read("Dockerfile").matchAll(/^FROM\s+node:(\d+\.\d+\.\d+)\b/gm)].map((m) => m[1]);
    expect(stages.length).toBeGreaterThan(0);
    // An exact version on both sides: a patch release changes the runtime too.
    expect(new Set(stages)).toEqual(new Set([shipped]));
    expect(lock.packages["node_modules/node"]?.version).toBe(shipped);
  });

  it("runs this test process and the node the tests start by name", () => {
    const why = "run the tests with `npm test`: npm scripts run on node_modules/.bin/node (the node devDependency)";
    expect(process.versions.node, why).toBe(shipped);
    expect(execFileSync("node", ["-p", "process.versions.node"], { encoding: "utf8" }).trim(), why).toBe(shipped);
  });

  it("meets engines.node, whose lowest version every locked package accepts", () => {
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return path && range && !semver.satisfies(floor, range)
        ? [`${path.replace(/^.*node_modules\//, "")}@${entry.version}: ${range}`]
        : [];
    });
    expect(refusing).toEqual([]);
    expect(semver.satisfies(shipped, pkg.engines.node)).toBe(true);
    // The typecheck knows only the oldest accepted Node's API, so no code needs a newer one.
    expect(semver.major(lock.packages["node_modules/@types/node"].version!)).toBe(semver.major(floor));
  });
});
