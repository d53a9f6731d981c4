/**
 * docs/configuration.md is generated from the service's environment readers and the stack schema
 * (`npm run docs:config`): it must be exactly what the generator renders now, so a new variable, a
 * changed default or a new stack key cannot land without the reference.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  REFERENCE_FILE,
  checkDescriptions,
  renderConfigurationReference,
} from "../../scripts/docs/config-reference.js";
import { ENV_DESCRIPTIONS } from "../../scripts/docs/env-descriptions.js";
import { describeEnvironment } from "../../service/src/config.js";

describe("the configuration reference", () => {
  it("docs/configuration.md is current (run `npm run docs:config` after changing a variable or a stack key)", () => {
    expect(readFileSync(REFERENCE_FILE, "utf8")).toBe(renderConfigurationReference());
  });

  it("lists every variable the service reads, each with what it accepts and its default", () => {
    const variables = describeEnvironment();
    const reference = readFileSync(REFERENCE_FILE, "utf8");
    for (const v of variables) expect(reference).toContain(`| \`${v.name}\``);
    const port = variables.find((v) => v.name === "PORT");
    expect(port).toMatchObject({ accepts: "an integer from 0 to 65535", fallback: 8080 });
    expect(reference).toContain("| `api.replicas` | integer ≥ 1 | `2` |");
  });

  it("refuses a variable the service reads without a description, and a description of one it does not read", () => {
    const variables = describeEnvironment();
    const extra = [...variables, { name: "NEW_SETTING", accepts: "anything", fallback: undefined, secret: false }];
    expect(() => checkDescriptions(extra, ENV_DESCRIPTIONS)).toThrow(/NEW_SETTING is read by the service/);
    const stale = { ...ENV_DESCRIPTIONS, OLD_SETTING: { group: "Limits", meaning: "gone" } };
    expect(() => checkDescriptions(variables, stale)).toThrow(/OLD_SETTING is described .* does not read it/);
  });

  it("a changed default makes the file on disk stale (the check can fail)", () => {
    const variables = describeEnvironment().map((v) => (v.name === "PORT" ? { ...v, fallback: 9090 } : v));
    expect(renderConfigurationReference(variables)).not.toBe(readFileSync(REFERENCE_FILE, "utf8"));
  });
});
