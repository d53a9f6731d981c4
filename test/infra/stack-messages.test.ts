/**
 * A broken stack file is told first cause first: a YAML error names the file and the line, and a
 * misspelt top-level group comes before the problems it causes, with the group it meant.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStackFile } from "../../infra/plan/stack-file.js";
import { loadStackSpec } from "../../infra/stack/load.js";
import { STACKS_DIR } from "../../infra/stack/stack-names.js";
import { formatIssues, validateStack } from "../../infra/stack/validate.js";
import { rawStack } from "./fixtures.js";

describe("stack file messages", () => {
  it("a YAML error names the file, the line and the reason, on one line", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-stacks-"));
    writeFileSync(join(dir, "Pulumi.broken.yaml"), "config:\n  agentport:api:\n    image: a\n   host: b\n");
    expect(() => readStackFile("broken", dir)).toThrow(
      new Error(
        `Stack file ${join(dir, "Pulumi.broken.yaml")} is not valid YAML: All mapping items must start at the same column at line 4, column 1`,
      ),
    );
  });

  it("a misspelt top-level group is listed first, with the group it meant", () => {
    const raw = rawStack("prod-aws");
    raw.apii = raw.api;
    delete raw.api;
    const v = validateStack(raw);
    expect(v.ok).toBe(false);
    const lines = formatIssues(v.issues).split("\n");
    expect(lines[0]).toBe("  apii: unknown top-level key (agentport:apii); did you mean agentport:api?");
    // What the typo caused comes after it.
    expect(lines.slice(1).some((l) => l.startsWith("  api"))).toBe(true);
  });

  it("a key far from every group gets no guess", () => {
    const v = validateStack({ ...rawStack("local"), kubernetes: {} });
    expect(v.ok || v.issues).toContainEqual({
      path: "kubernetes",
      message: "unknown top-level key (agentport:kubernetes); the groups are listed in docs/configuration.md",
    });
  });

  it("loading a stack by name says the same", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-stacks-"));
    copyFileSync(join(STACKS_DIR, "Pulumi.local.yaml"), join(dir, "Pulumi.local.yaml"));
    writeFileSync(join(dir, "Pulumi.tabs.yaml"), "config:\n\tagentport:api: {}\n");
    expect(() => loadStackSpec("tabs", dir)).toThrow(/Pulumi\.tabs\.yaml is not valid YAML: .* at line 2, column 1$/);
    expect(() => loadStackSpec("local", dir)).not.toThrow();
  });
});
