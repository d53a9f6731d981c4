/**
 * Code shape: no function longer than 100 lines in service/src and infra, and no import cycle
 * among their files. Parsed with the TypeScript compiler API (typescript is already a dependency;
 * no lint or graph library is installed, and these two rules need only the syntax tree).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const roots = ["service/src", "infra"].map((dir) => join(root, dir));
// The harness, the gateway and the bench are checked for cycles too (their functions may be longer).
const cycleRoots = [
  ...roots,
  ...["loadtest/harness", "loadtest/gateway", "service/bench"].map((dir) => join(root, dir)),
];
// 100 formatted lines: Prettier's layout takes about a fifth more lines than the hand layout the
// earlier limit of 80 was set against.
const maxLines = 100;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : tsFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? "class"}.constructor`;
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

/** Every function, method, arrow and constructor longer than maxLines, as "file:line name (n lines)". */
function longFunctions(files: string[]): string[] {
  const found: string[] = [];
  for (const path of files) {
    const source = parse(path);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > maxLines) found.push(`${relative(root, path)}:${start + 1} ${functionName(node)} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/**
 * Relative imports of a file, resolved to the .ts files they name: import and export declarations
 * (type-only ones too: a cycle of types is still a cycle of concerns), dynamic `import()` calls and
 * `import("…").T` type references.
 */
function localImports(path: string): string[] {
  const targets: string[] = [];
  const add = (specifier: ts.Node | undefined) => {
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith("."))
      targets.push(resolve(dirname(path), specifier.text).replace(/\.js$/, ".ts"));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(parse(path));
  return targets;
}

/** Each import cycle once, as "a.ts -> b.ts -> a.ts" (depth-first search over the import graph). */
function importCycles(files: string[]): string[] {
  const graph = new Map(files.map((file) => [file, localImports(file)]));
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const walk = (file: string, stack: string[]): void => {
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        cycles.push(loop.map((f) => relative(root, f)).join(" -> "));
      } else if (!state.has(next)) walk(next, [...stack, next]);
    }
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) walk(file, [file]);
  return cycles;
}

const files = roots.flatMap(tsFiles);

/**
 * The service's layers, lowest first (docs/architecture.md draws them): a file may import its own
 * layer and the ones below, never one above. Each entry is a folder or a file under service/src.
 */
const serviceLayers: string[][] = [
  ["errors.ts", "byte-size.ts", "version.ts", "validation.ts", "url-problem.ts", "yaml-problem.ts", "sse"],
  ["store", "blobs", "metrics"],
  ["telemetry"],
  ["domain"],
  // The environment's reader composes what the modules below define (their settings and defaults).
  ["config.ts", "config"],
  ["http", "mcp"],
  ["plugins"],
  ["routes"],
  ["app.ts", "server.ts", "cli", "startup-gc.ts", "parent-watch.ts", "server-record.ts", "port-probe.ts"],
];

function serviceLayer(path: string): number {
  const top = relative(join(root, "service/src"), path).split("/")[0];
  const layer = serviceLayers.findIndex((names) => names.includes(top));
  if (layer < 0) throw new Error(`service/src/${top} is in no layer: add it to serviceLayers`);
  return layer;
}

/** Imports that run up the service's layers, as "from -> to". */
function upwardImports(): string[] {
  const service = tsFiles(join(root, "service/src"));
  return service.flatMap((file) =>
    localImports(file)
      .filter((target) => target.startsWith(join(root, "service/src")) && serviceLayer(target) > serviceLayer(file))
      .map((target) => `${relative(root, file)} -> ${relative(root, target)}`),
  );
}

/**
 * Long functions in files other engineers own right now; each is split by its owner. The list must
 * only shrink: a name here that is no longer long fails the test too, so it is taken off.
 */
const pending: string[] = [];

describe("code shape", () => {
  it("no function in service/src or infra is over 100 lines", () => {
    const long = longFunctions(files);
    const unlisted = long.filter(
      (entry) => !pending.some((name) => entry.replace(/:\d+ /, " ").startsWith(name + " ")),
    );
    const stale = pending.filter((name) => !long.some((entry) => entry.replace(/:\d+ /, " ").startsWith(name + " ")));
    expect({ unlisted, stale }).toEqual({ unlisted: [], stale: [] });
  });

  it("no import cycle among the service, the bench, infra and the load test, type imports included", () => {
    expect(importCycles(cycleRoots.flatMap(tsFiles))).toEqual([]);
  });

  it("no file in service/src imports a layer above its own", () => {
    expect(upwardImports()).toEqual([]);
  });
});
