/**
 * Conformance, path by path: every row of spec-paths.ts is checked against the validator and the
 * values builder, and the table must name exactly the paths of the deployment reference.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildPlatformValues } from "../../infra/platform/values/index.js";
import type { StackSpec } from "../../infra/stack/schema.js";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { objstoreChartSecret, objstoreComponentValues } from "../../infra/storage/objstore.js";
import { rawStack, SECRETS } from "./fixtures.js";
import { at } from "./plan-helpers.js";
import { SPEC_FILE, specPaths } from "./spec-doc.js";
import { CHART, isGenerated, MINIMAL, SPEC_PATHS, type SpecRow } from "./spec-paths.js";

const segments = (path: string) => path.replace(/\[(\d+)\]/g, ".$1").split(".");

function setPath(tree: Record<string, any>, path: string, value: unknown): void {
  const keys = segments(path);
  let node = tree;
  for (const [i, key] of keys.slice(0, -1).entries()) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== "object") node[key] = /^\d+$/.test(keys[i + 1]!) ? [] : {};
    node = node[key];
  }
  node[keys.at(-1)!] = value;
}

function deletePath(tree: Record<string, any>, path: string): void {
  const keys = segments(path);
  const parent = keys.slice(0, -1).reduce<any>((n, k) => (n && typeof n === "object" ? n[k] : undefined), tree);
  if (parent && typeof parent === "object") delete parent[keys.at(-1)!];
}

/** The stack a row's checks start from; `withFeature` for every check but the default's. */
const baseOf = (row: SpecRow, withFeature = true): Record<string, any> => {
  const raw = row.base ? rawStack(row.base) : structuredClone(MINIMAL);
  row.on?.(raw);
  if (withFeature) row.feature?.(raw);
  return raw;
};

const objstoreSecret = (o: StackSpec["storage"]["secret"]["objstore"]) =>
  objstoreChartSecret(o, o.ACCESS_KEY_ID ?? "S-objstore-access", o.SECRET_ACCESS_KEY ?? "S-objstore-secret");

const valuesOf = (spec: StackSpec) =>
  buildPlatformValues({
    spec,
    secrets: SECRETS,
    managed: {},
    storage: {
      provider: spec.storage.provider,
      // The objstore's is pure (the stack's settings and its keys); the clouds' come from the resources they create.
      chartSecret: spec.storage.provider === "Minio" ? objstoreSecret(spec.storage.secret.objstore) : {},
      componentValues: spec.storage.provider === "Minio" ? objstoreComponentValues(spec.objstore, SECRETS.objstoreRootPassword) : { enabled: false },
    },
  });

function validSpec(raw: Record<string, any>): StackSpec {
  const v = validateStack(raw);
  expect(v.ok ? [] : v.issues).toEqual([]);
  return (v as { spec: StackSpec }).spec;
}

/** Problems of a stack, judged on form alone (every value counts as a `secure:` entry). */
function issuesOf(raw: Record<string, any>): Issue[] {
  const v = validateStack(raw, { isSecure: () => true });
  return v.ok ? [] : v.issues;
}

/** The row's base stack is valid, so a refusal after the row's edit is that edit's. */
function editedBase(row: SpecRow, withFeature = true): Record<string, any> {
  const raw = baseOf(row, withFeature);
  expect(issuesOf(raw), "the base stack is valid").toEqual([]);
  return raw;
}

/** A refusal names the path: the path itself, a path below it, or the group holding it. */
const names = (issue: Issue, path: string) =>
  issue.path === path || issue.path.startsWith(`${path}.`) || issue.path.startsWith(`${path}[`) || path.startsWith(`${issue.path}.`);

const param = (row: SpecRow) => row.param ?? row.path;
const rendered = (row: SpecRow) => row.rendered ?? row.path;
/** The clouds' storage.secret.* is rendered by their storage components, which the stored plans cover. */
const renderedHere = (row: SpecRow) => !/^storage\.secret\.(cloudb|clouda)\./.test(row.path);

/** A value as rendered: with what the stack appends to the list, when it does. */
const withAppended = (row: SpecRow, value: unknown) => (row.appended ? [...(value as unknown[]), ...row.appended] : value);

const has = (row: SpecRow, column: keyof SpecRow) => column in row && row[column] !== undefined;
const withColumn = (column: keyof SpecRow) => SPEC_PATHS.filter((r) => has(r, column)).map((r) => [r.path, r] as const);

describe("the conformance table and the deployment reference", () => {
  it("name the same parameter paths, each once", () => {
    const table = SPEC_PATHS.map((r) => r.path);
    expect(new Set(table).size).toBe(table.length);
    expect([...table].sort()).toEqual([...specPaths()].sort());
  });

  it("notice a parameter added to the reference", () => {
    const md = readFileSync(SPEC_FILE, "utf8").replace("| jwt.algorithm |", "| jwt.issuer, .audience | string | - | Optional |\n| jwt.algorithm |");
    expect(specPaths(md)).toEqual(expect.arrayContaining(["jwt.issuer", "jwt.audience"]));
  });
});

describe("spec default renders at the path when the stack leaves it unset", () => {
  it.each(withColumn("default"))("%s", (_path, row) => {
    const got = at(valuesOf(validSpec(baseOf(row, false))), rendered(row));
    if (row.default === CHART) expect(got).toBeUndefined();
    else if (isGenerated(row.default)) expect(got).toEqual(row.default.generated);
    else expect(got).toEqual(withAppended(row, row.default));
  });
});

describe("an override is accepted and renders", () => {
  it.each(withColumn("override"))("%s", (_path, row) => {
    const raw = baseOf(row);
    setPath(raw, row.setAt ?? param(row), row.override);
    const values = valuesOf(validSpec(raw));
    if (!row.secret && renderedHere(row)) expect(at(values, rendered(row))).toEqual(withAppended(row, row.override));
  });
});

describe("an invalid value is refused naming the path", () => {
  it.each(withColumn("invalid"))("%s", (_path, row) => {
    const raw = editedBase(row);
    setPath(raw, param(row), row.invalid);
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
  });
});

describe("a value not to be changed cannot be changed", () => {
  it.each(withColumn("fixed"))("%s", (_path, row) => {
    const raw = editedBase(row, false);
    setPath(raw, param(row), row.fixed);
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
  });
});

describe("a Required value is demanded when its feature is on", () => {
  it.each(withColumn("required"))("%s", (_path, row) => {
    const raw = editedBase(row);
    if (row.unset) row.unset(raw);
    else deletePath(raw, param(row));
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
  });
});

describe("a secret of the reference is refused in plaintext", () => {
  it.each(withColumn("secret"))("%s", (_path, row) => {
    const raw = baseOf(row);
    setPath(raw, param(row), Array.isArray(row.override) ? ["plaintext"] : "plaintext");
    const v = validateStack(raw);
    const refused = (v.ok ? [] : v.issues).filter((i) => names(i, param(row)) && /plaintext/.test(i.message));
    expect(refused).not.toEqual([]);
  });
});

describe("column totals", () => {
  const count = (f: (r: SpecRow) => boolean) => SPEC_PATHS.filter(f).length;
  const validated = (r: SpecRow) => has(r, "invalid") || has(r, "fixed") || has(r, "required") || has(r, "secret");
  const asserted = (r: SpecRow) => ["default", "override", "invalid", "fixed", "required"].some((c) => has(r, c as keyof SpecRow));
  /** The rows a column applies to, and those it does not, by reason. */
  const column = (c: "override" | "default") => {
    const na: Record<string, number> = {};
    for (const r of SPEC_PATHS) if (r.na?.[c]) na[r.na[c]] = (na[r.na[c]] ?? 0) + 1;
    return { checked: count((r) => has(r, c)), applicable: count((r) => !r.na?.[c]), na };
  };

  it.each(["override", "default"] as const)("%s: each row has the check or says why it does not apply, never both", (c) => {
    const unexplained = SPEC_PATHS.filter((r) => has(r, c) === !!r.na?.[c]).map((r) => r.path);
    expect(unexplained).toEqual([]);
  });

  it("are every applicable row, reported out of the table's rows with the others by reason", () => {
    const n = SPEC_PATHS.length;
    const settable = column("override");
    const rendered = column("default");
    const totals = {
      rows: n,
      settable: `${settable.checked}/${settable.applicable} applicable (${n - settable.applicable} not applicable: ${JSON.stringify(settable.na)})`,
      validated: `${count(validated)}/${n}`,
      renderedWithSpecDefault: `${rendered.checked}/${rendered.applicable} applicable (${n - rendered.applicable} not applicable: ${JSON.stringify(rendered.na)})`,
      asserted: `${count(asserted)}/${n}`,
    };
    console.info(`conformance totals: ${JSON.stringify(totals, null, 2)}`);
    expect([settable.checked, count(validated), rendered.checked, count(asserted)]).toEqual([settable.applicable, n, rendered.applicable, n]);
  });
});
