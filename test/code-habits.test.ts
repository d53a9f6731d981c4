/**
 * The formatter and the linter CI runs catch what they are there for: a planted floating promise,
 * misused promise and non-exhaustive switch fail `npm run lint`'s configuration, and a planted
 * over-long line fails the format check. Both run through the tools' own APIs with the project's
 * own configuration files; the planted file sits in a folder of the tree with a tsconfig of its
 * own, so the linter's type information covers that one file, not the whole program.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ESLint } from "eslint";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

const planted = `import { readFile } from "node:fs/promises";

type Shape = "circle" | "square" | "triangle";

export function corners(shape: Shape): number {
  readFile("never-awaited");
  [1, 2].forEach(async (n) => {
    await readFile(String(n));
  });
  switch (shape) {
    case "circle":
      return 0;
    case "square":
      return 4;
  }
  return -1;
}
`;

describe("code habits", () => {
  it("the linter refuses a floating promise, a promise where a callback returns void and a switch missing a member", async () => {
    const dir = join(root, "test", `.planted-${randomBytes(4).toString("hex")}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, module: "NodeNext", target: "ES2022", types: ["node"], noEmit: true },
        include: ["planted.ts"],
      }),
    );
    writeFileSync(join(dir, "planted.ts"), planted);
    try {
      const [result] = await new ESLint({ cwd: root, cache: false }).lintFiles([join(dir, "planted.ts")]);
      const rules = result.messages.map((m) => m.ruleId).sort();
      expect(rules).toEqual([
        "@typescript-eslint/no-floating-promises",
        "@typescript-eslint/no-misused-promises",
        "@typescript-eslint/switch-exhaustiveness-check",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("the format check refuses a line over the print width and accepts the same code formatted", async () => {
    const filepath = join(root, "service/src/planted.ts");
    const options = { ...(await prettier.resolveConfig(filepath)), filepath };
    const long = `export const names = ["${"a".repeat(40)}", "${"b".repeat(40)}", "${"c".repeat(40)}"];\n`;
    expect(options.printWidth).toBe(120);
    expect(await prettier.check(long, options)).toBe(false);
    expect(await prettier.check(await prettier.format(long, options), options)).toBe(true);
  });
});
