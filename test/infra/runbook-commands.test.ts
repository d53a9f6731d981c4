import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const files = [
  "README.md",
  ...readdirSync("docs")
    // Generated from the schema's comments, which are no runbook.
    .filter((f) => f.endsWith(".md") && f !== "configuration.md")
    .map((f) => `docs/${f}`),
];

/** Every runbook line that refreshes or destroys a stack, by file and line. */
function commands(verb: "refresh" | "destroy"): Array<{ where: string; line: string }> {
  return files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
      .filter(({ line }) => new RegExp(`pulumi ${verb}\\b`).test(line)),
  );
}

describe("runbook commands work as written", () => {
  it("every `pulumi refresh` and `pulumi destroy` runs the program (the image's ECR login in state expires after 12 h)", () => {
    const found = [...commands("refresh"), ...commands("destroy")];
    expect(found.length).toBeGreaterThan(2);
    const bare = found.filter(({ line }) => !/pulumi (refresh|destroy)[^`]*--run-program/.test(line));
    expect(bare.map((b) => b.where)).toEqual([]);
  });
});
