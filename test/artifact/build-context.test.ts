import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
// A CommonJS module whose factory is also its `default` (what NodeNext types give a default import).
import dockerignore from "@balena/dockerignore";
import { DockerfileParser, type Copy } from "dockerfile-ast";
import { minimatch } from "minimatch";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

/** The working tree's files, less what git ignores (node_modules, dist, local data), by path. */
const repoFiles = (): Map<string, string> =>
  new Map(
    execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"], {
      encoding: "utf8",
    })
      .split("\0")
      .filter((p) => p && existsSync(p))
      .map((p) => [p, p]),
  );

/** The files a build gets: what .dockerignore lets into the context, as Docker's matcher reads it. */
function contextFiles(files: Map<string, string>, rules = readFileSync(".dockerignore", "utf8")): string[] {
  const matcher = dockerignore.default().add(rules);
  return [...files.keys()].filter((p) => !matcher.ignores(p)).sort();
}

/**
 * The build context's hash the way docker-build takes it to decide whether to build again: every
 * file the .dockerignore lets in (its path, mode and content) and the Dockerfile. `changed` stands
 * for edited or added files: path to new content.
 */
function contextHash(changed: Record<string, string> = {}): string {
  const files = repoFiles();
  for (const p of Object.keys(changed)) files.set(p, p);
  const hash = createHash("sha256").update(readFileSync("Dockerfile"));
  for (const p of contextFiles(files)) {
    const content = p in changed ? Buffer.from(changed[p]) : readFileSync(p);
    const mode = p in changed ? 0o100644 : statSync(p).mode;
    hash.update(`${p}\0${mode.toString(8)}\0${createHash("sha256").update(content).digest("hex")}\n`);
  }
  return hash.digest("hex");
}

const edited = (path: string) => ({ [path]: `${readFileSync(path, "utf8")}\n// edited\n` });

describe("the image's build context (the second `up`: what rebuilds the image)", () => {
  it("holds only what the image is built from: the package manifests, the build's scripts, the service's sources", () => {
    const files = contextFiles(repoFiles());
    expect(files).toContain("service/src/server.ts");
    const outside = files.filter(
      (p) =>
        !/^(package\.json|package-lock\.json|tsconfig\.json|scripts\/(build\.mjs|bundle-options\.mjs|pglite-template\.mjs|stage-image\.sh)|service\/src\/.+|service\/agents\.example\.yaml)$/.test(
          p,
        ),
    );
    expect(outside).toEqual([]);
  });

  it("has every file the Dockerfile copies from it", () => {
    const files = contextFiles(repoFiles());
    const copies = DockerfileParser.parse(readFileSync("Dockerfile", "utf8"))
      .getInstructions()
      .filter((i): i is Copy => i.getKeyword() === "COPY" && !(i as Copy).getFromFlag());
    const sources = copies.flatMap((c) =>
      c
        .getArguments()
        .slice(0, -1)
        .map((a) => a.getValue().replace(/\/$/, "")),
    );
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources)
      expect(
        files.some((f) => f === source || f.startsWith(`${source}/`)),
        source,
      ).toBe(true);
  });

  it("does not change for an edit to the README, docs, tests, infra, stacks, load tests, workflows or benchmarks", () => {
    const base = contextHash();
    const elsewhere = [
      "README.md",
      "CHANGELOG.md",
      "Pulumi.yaml",
      "docs/spec/deployment.md",
      "test/service/provision-db.test.ts",
      "infra/index.ts",
      "stacks/Pulumi.prod-aws.yaml",
      ".github/workflows/preview.yml",
    ];
    for (const path of elsewhere) expect(contextHash(edited(path)), path).toBe(base);
    const anyTracked = (dir: string) => [...repoFiles().keys()].find((p) => p.startsWith(dir))!;
    for (const dir of ["loadtest/", "service/bench/", "scripts/"]) {
      const path = dir === "scripts/" ? "scripts/new-helper.sh" : anyTracked(dir);
      expect(contextHash(dir === "scripts/" ? { [path]: "#!/bin/sh\n" } : edited(path)), path).toBe(base);
    }
    expect(contextHash({ "docs/new-page.md": "# new\n" })).toBe(base);
  });

  it("changes for an edit to the service's code, its migrations, the lockfile or the build script", () => {
    const base = contextHash();
    for (const path of ["service/src/server.ts", "package-lock.json", "scripts/build.mjs"])
      expect(contextHash(edited(path)), path).not.toBe(base);
    expect(contextHash({ "service/src/store/migrations/9999_new.sql": "SELECT 1;\n" })).not.toBe(base);
  });

  it("is watched by the preview workflow: a pull request touching the image's sources or the Dockerfile is previewed", () => {
    const paths: string[] = parse(readFileSync(".github/workflows/preview.yml", "utf8")).on.pull_request.paths;
    const watched = (p: string) => paths.some((glob) => minimatch(p, glob, { dot: true }));
    expect(
      [
        ...contextFiles(repoFiles()),
        "Dockerfile",
        ".dockerignore",
        "infra/index.ts",
        "stacks/Pulumi.local.yaml",
      ].filter((p) => !watched(p)),
    ).toEqual([]);
  });
});
