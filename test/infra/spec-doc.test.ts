/**
 * The deployment reference's parser (spec-doc.ts): each test edits a copy of the reference in memory
 * and shows the parser notices the edit, so a path the reference gains or loses reaches the
 * conformance table's comparison (spec-paths.test.ts) instead of passing unseen.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BOOST_INSTANCE_MODELS } from "../../infra/stack/schema-platform.js";
import { boostInstanceSuffixes, SPEC_FILE, specPaths } from "./spec-doc.js";

const SPEC = readFileSync(SPEC_FILE, "utf8");
const INSTANCE_1 = "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_";

/** The reference with one edit; the edit must apply, or the test would prove nothing. */
function edited(from: string, to: string): string {
  expect(SPEC, `the reference contains ${JSON.stringify(from)}`).toContain(from);
  return SPEC.replace(from, to);
}

describe("the parser finds", () => {
  it("one key per boost model suffix of instance 1, the suffixes the validator accepts", () => {
    expect([...boostInstanceSuffixes()].sort()).toEqual([...BOOST_INSTANCE_MODELS].sort());
    const keys = specPaths().filter((p) => p.startsWith(INSTANCE_1));
    expect(keys.sort()).toEqual(BOOST_INSTANCE_MODELS.map((m) => INSTANCE_1 + m).sort());
  });

  it("the second git host's fields (the first's), and a prose group with no members as a path of its own", () => {
    expect(specPaths()).toEqual(
      expect.arrayContaining([
        "credentials.githost_b.app_name",
        "credentials.githost_b.client_id",
        "credentials.githost_b.client_secret",
        "credentials.design.*",
      ]),
    );
  });

  it("no path of its own for a prose group whose members a table lists", () => {
    const paths = specPaths();
    expect(paths).toContain("externalSqldb.host");
    expect(paths).not.toContain("externalSqldb.*");
    expect(paths).not.toContain("credentials.githost_b.*");
  });
});

describe("the parser notices", () => {
  it("a parameter added to a table", () => {
    const md = edited("| jwt.algorithm |", "| jwt.issuer, .audience | string | - | Optional |\n| jwt.algorithm |");
    expect(specPaths(md)).toEqual(expect.arrayContaining(["jwt.issuer", "jwt.audience"]));
  });

  it("a common field, a component and a must-override path added", () => {
    const md = SPEC.replace("`affinity` (object", "`priorityClassName` (string), `affinity` (object")
      .replace("browser (browser automation)", "browser (browser automation), indexer")
      .replace("| JWT | jwt.secret |", "| JWT | jwt.secret, jwt.rotation.period |");
    expect(specPaths(md)).toEqual(
      expect.arrayContaining([
        "frontend.priorityClassName",
        "automation.services.rpc.priorityClassName",
        "indexer.enabled",
        "indexer.serviceAccount.annotations",
        "jwt.rotation.period",
      ]),
    );
    expect(specPaths(md).length).toBeGreaterThan(specPaths().length);
  });

  it("a wildcard group added in prose", () => {
    const md = edited("`credentials.design.*`,", "`credentials.design.*`, `credentials.chat_tool.*`,");
    expect(specPaths(md)).toContain("credentials.chat_tool.*");
    expect(specPaths(md)).toHaveLength(specPaths().length + 1);
  });

  it("a third git host added in prose, whose fields the reference does not give", () => {
    const md = edited("`credentials.githost_b.*`,", "`credentials.githost_b.*`, `credentials.githost_c.*`,");
    expect(specPaths(md)).toContain("credentials.githost_c.*");
  });

  it("a boost model suffix added", () => {
    const md = edited("O3_MINI, O4_MINI.", "O3_MINI, O4_MINI, 5_MINI.");
    expect(boostInstanceSuffixes(md)).toContain("5_MINI");
    expect([...boostInstanceSuffixes(md)].sort()).not.toEqual([...BOOST_INSTANCE_MODELS].sort());
    expect(specPaths(md)).toContain(`${INSTANCE_1}5_MINI`);
    expect(specPaths(md)).toHaveLength(specPaths().length + 1);
  });

  it("a table row removed", () => {
    const md = edited("| credentials.git_webhook_secret | string | placeholder | Optional |\n", "");
    expect(specPaths()).toContain("credentials.git_webhook_secret");
    expect(specPaths(md)).not.toContain("credentials.git_webhook_secret");
    expect(specPaths(md)).toHaveLength(specPaths().length - 1);
  });

  it("a boost model suffix removed", () => {
    const md = edited("41_MINI, 41_NANO, O1", "41_MINI, O1");
    expect(specPaths()).toContain(`${INSTANCE_1}41_NANO`);
    expect(specPaths(md)).not.toContain(`${INSTANCE_1}41_NANO`);
    expect(specPaths(md)).toHaveLength(specPaths().length - 1);
  });

  it("a wildcard group removed from the prose", () => {
    const md = edited("`credentials.githost_b.*`, `credentials.design.*`,", "");
    const gone = ["credentials.githost_b.app_name", "credentials.githost_b.client_secret", "credentials.design.*"];
    expect(specPaths()).toEqual(expect.arrayContaining(gone));
    expect(specPaths(md).filter((p) => gone.includes(p))).toEqual([]);
    expect(specPaths(md)).toHaveLength(specPaths().length - 4);
  });

  it("a boost models sentence it cannot read", () => {
    expect(() => specPaths(edited("O3_MINI, O4_MINI.", "O3_MINI, O4-MINI."))).toThrow(/O4-MINI/);
    expect(() => specPaths(edited("Instance 1 has models suffixes", "Instance 1 serves"))).toThrow(/boost/);
  });
});
