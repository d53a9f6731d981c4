/**
 * Conformance, path by path: every row of spec-paths.ts is checked against the validator and the
 * values builder, and the table must name exactly the paths of the deployment reference (as the
 * parser reads them; its own tests are in spec-doc.test.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { buildPlatformValues } from "../../infra/platform/values/index.js";
import { Secrets } from "../../infra/secrets.js";
import type { StackSpec } from "../../infra/stack/schema.js";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { createStorage } from "../../infra/storage/index.js";
import { objstoreComponentValues } from "../../infra/storage/objstore.js";
import { rawStack, SECRETS } from "./fixtures.js";
import { at } from "./plan-helpers.js";
import { specPaths } from "./spec-doc.js";
import { CHART, isGenerated, MINIMAL, SPEC_PATHS, type SpecRow } from "./spec-paths.js";
import { NA } from "./spec-paths/row.js";

/** Inputs of every resource the program creates here, by name: the source of each generated secret. */
const created = new Map<string, { type: string; inputs: Record<string, any> }>();
/** A created resource's random output: its name, so a rendered value names the resource it came from. */
const generatedBy = (name: string) => `generated-by:${name}`;
await pulumi.runtime.setMocks(
  {
    newResource: ({ type, name, inputs }) => {
      created.set(name, { type, inputs });
      const outputs: Record<string, unknown> = {
        ...inputs,
        result: generatedBy(name),
        privateKeyPem: generatedBy(name),
        secret: generatedBy(name),
        name: inputs.accountName ?? inputs.name ?? name,
      };
      return { id: generatedBy(name), state: outputs };
    },
    call: ({ token }) =>
      token.includes("listStorageAccountKeys") ? { keys: [{ value: generatedBy("account-key") }] } : {},
  },
  "agentport",
  "spec",
  false,
);

const segments = (path: string) => path.replace(/\[(\d+)\]/g, ".$1").split(".");

function setPath(tree: Record<string, any>, path: string, value: unknown): void {
  const keys = segments(path);
  let node = tree;
  for (const [i, key] of keys.slice(0, -1).entries()) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== "object")
      node[key] = /^\d+$/.test(keys[i + 1]) ? [] : {};
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

const unwrap = (o: pulumi.Output<unknown>) => new Promise<unknown>((resolve) => o.apply((v) => (resolve(v), v)));

/** The tree with every Output resolved (secrets included). */
async function resolved(v: unknown): Promise<unknown> {
  if (pulumi.Output.isInstance(v)) return resolved(await unwrap(v));
  if (Array.isArray(v)) return Promise.all(v.map(resolved));
  if (v && typeof v === "object")
    return Object.fromEntries(
      await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await resolved(x)] as const)),
    );
  return v;
}

/** Rows whose value comes from the Secrets or storage components: rendered through them (slower, under mocks). */
const throughComponents = (row: SpecRow) =>
  !!row.secret || isGenerated(row.default) || row.path.startsWith("storage.secret.");

/** The values from plain stand-ins for the generated secrets and no storage resources: the rest of the tree is pure. */
function pureValues(spec: StackSpec): Record<string, unknown> {
  const minio = spec.storage.provider === "Minio";
  const storage = {
    provider: spec.storage.provider,
    chartSecret: {},
    componentValues: minio ? objstoreComponentValues(spec.objstore, SECRETS.objstoreRootPassword) : { enabled: false },
  };
  return buildPlatformValues({ spec, secrets: SECRETS, managed: {}, storage });
}

let instance = 0;
/** The platform values as the program builds them: its Secrets and storage components (under mocks), resolved. */
async function valuesOf(spec: StackSpec): Promise<{ values: Record<string, unknown>; prefix: string }> {
  const prefix = `r${++instance}`;
  const secrets = new Secrets(`${prefix}-secrets`, { spec });
  const storage = await createStorage(`${prefix}-storage`, spec, secrets, "group");
  const values = buildPlatformValues({ spec, secrets, managed: {}, storage });
  return { values: (await resolved(values)) as Record<string, unknown>, prefix };
}

/** The value at a row's rendered path, with the stack as given. */
async function renderedAt(row: SpecRow, raw: Record<string, any>): Promise<{ got: unknown; prefix: string }> {
  if (!throughComponents(row)) return { got: at(pureValues(validSpec(raw)), row.rendered ?? row.path), prefix: "" };
  const { values, prefix } = await valuesOf(validSpec(raw));
  return { got: at(values, row.rendered ?? row.path), prefix };
}

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
  issue.path === path ||
  issue.path.startsWith(`${path}.`) ||
  issue.path.startsWith(`${path}[`) ||
  path.startsWith(`${issue.path}.`);

const param = (row: SpecRow) => row.param ?? row.path;

/** A value as rendered: with what the stack appends to the list, when it does. */
const withAppended = (row: SpecRow, value: unknown) =>
  row.appended ? [...(value as unknown[]), ...row.appended] : value;

const has = (row: SpecRow, column: keyof SpecRow) => column in row && row[column] !== undefined;
const withColumn = (column: keyof SpecRow) => SPEC_PATHS.filter((r) => has(r, column)).map((r) => [r.path, r] as const);

describe("the conformance table and the deployment reference", () => {
  it("name the same parameter paths, each once", () => {
    const table = SPEC_PATHS.map((r) => r.path);
    expect(new Set(table).size).toBe(table.length);
    expect([...table].sort()).toEqual([...specPaths()].sort());
  });
});

/** Rows whose check ran to its end, by what it showed: the totals count these and nothing else. */
const passed = {
  specDefault: new Set<string>(),
  generated: new Set<string>(),
  chart: new Set<string>(),
  choice: new Set<string>(),
  deviation: new Set<string>(),
  override: new Set<string>(),
  validated: new Set<string>(),
};

/** A generated secret renders its random resource's output, and that resource asks for the length and alphabet. */
function expectGenerated(got: unknown, g: NonNullable<ReturnType<typeof generatedOf>>, prefix: string): void {
  const name = `${prefix}-secrets-${g.resource}`;
  const source = created.get(name);
  expect(got).toEqual(g.list ? [generatedBy(name)] : generatedBy(name));
  if (g.rsa) {
    expect(source).toMatchObject({
      type: "tls:index/privateKey:PrivateKey",
      inputs: { algorithm: "RSA", rsaBits: 4096 },
    });
    return;
  }
  // Letters and digits, each class at least once: no `special` characters.
  expect(source).toMatchObject({
    type: "random:index/randomPassword:RandomPassword",
    inputs: { length: g.length, special: false, minUpper: 1, minLower: 1, minNumeric: 1 },
  });
  if (g.suggested) expect(g.length).toBeGreaterThanOrEqual(g.suggested);
}
const generatedOf = (row: SpecRow) => (isGenerated(row.default) ? row.default.generated : undefined);

describe("spec default renders at the path when the stack leaves it unset", () => {
  it.each(withColumn("default"))("%s", async (_path, row) => {
    const { got, prefix } = await renderedAt(row, baseOf(row, false));
    const generated = generatedOf(row);
    if (row.default === CHART) expect(got).toBeUndefined();
    else if (generated) expectGenerated(got, generated, prefix);
    else expect(got).toEqual(withAppended(row, row.default));
    const kind = row.default === CHART ? "chart" : generated ? "generated" : row.choice ? "choice" : "specDefault";
    passed[kind].add(row.path);
  });
});

describe("a deviation from the reference renders what the row states", () => {
  it.each(SPEC_PATHS.filter((r) => r.deviation).map((r) => [r.path, r] as const))("%s", async (_path, row) => {
    const { got } = await renderedAt(row, baseOf(row, false));
    expect(got).toEqual(row.deviation!.renders);
    passed.deviation.add(row.path);
  });
});

describe("the reference's equalities hold for generated secrets", () => {
  it.each([
    ["automation.env.PUBLIC_LLM_INTERNAL_SECRET", "ultron.secret.PUBLIC_LLM_INTERNAL_SECRET"],
    ["credentials.boost.SERVICE_BOOST_AUTO_API_KEY", "credentials.graphql.GRAPHQL_ADMIN_SECRET"],
  ])("%s = %s", async (left, right) => {
    const { values } = await valuesOf(validSpec(structuredClone(MINIMAL)));
    expect(at(values, left)).toMatch(/^generated-by:/);
    expect(at(values, left)).toEqual(at(values, right));
  });
});

describe("an override is accepted, renders, and changes what renders", () => {
  it.each(withColumn("override"))("%s", async (_path, row) => {
    const raw = baseOf(row);
    const where = { ...row, rendered: row.setAt ?? row.rendered };
    const before = (await renderedAt(where, baseOf(row, false))).got;
    setPath(raw, row.setAt ?? param(row), row.override);
    const { got } = await renderedAt(where, raw);
    expect(got).toEqual(withAppended(row, row.override));
    expect(got, "the override differs from what renders without it").not.toEqual(before);
    passed.override.add(row.path);
  });
});

describe("an invalid value is refused naming the path", () => {
  it.each(withColumn("invalid"))("%s", (_path, row) => {
    const raw = editedBase(row);
    setPath(raw, param(row), row.invalid);
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
    passed.validated.add(row.path);
  });
});

describe("a value not to be changed cannot be changed", () => {
  it.each(withColumn("fixed"))("%s", (_path, row) => {
    const raw = editedBase(row, false);
    setPath(raw, param(row), row.fixed);
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
    passed.validated.add(row.path);
  });
});

describe("a Required value is demanded when its feature is on", () => {
  it.each(withColumn("required"))("%s", (_path, row) => {
    const raw = editedBase(row);
    if (row.unset) row.unset(raw);
    else deletePath(raw, param(row));
    expect(issuesOf(raw).filter((i) => names(i, param(row)))).not.toEqual([]);
    passed.validated.add(row.path);
  });
});

/** A plaintext value of the override's shape: a list of one, a group with each of its keys, or a string. */
const plaintextLike = (override: unknown): unknown =>
  Array.isArray(override)
    ? ["plaintext"]
    : override && typeof override === "object"
      ? Object.fromEntries(Object.keys(override).map((k) => [k, "plaintext"]))
      : "plaintext";

describe("a secret of the reference is refused in plaintext", () => {
  it.each(withColumn("secret"))("%s", (_path, row) => {
    const raw = baseOf(row);
    setPath(raw, param(row), plaintextLike(row.override));
    const v = validateStack(raw);
    const refused = (v.ok ? [] : v.issues).filter((i) => names(i, param(row)) && /plaintext/.test(i.message));
    expect(refused).not.toEqual([]);
    passed.validated.add(row.path);
  });
});

describe("column totals", () => {
  const n = SPEC_PATHS.length;
  const withNa = (c: "override" | "default") => {
    const na: Record<string, number> = {};
    for (const r of SPEC_PATHS) if (r.na?.[c]) na[r.na[c]] = (na[r.na[c]] ?? 0) + 1;
    return { applicable: SPEC_PATHS.filter((r) => !r.na?.[c]).length, na };
  };

  it.each(["override", "default"] as const)(
    "%s: each row has the check or says why it does not apply, never both",
    (c) => {
      const checked = (r: SpecRow) => has(r, c) || (c === "default" && !!r.deviation);
      const unexplained = SPEC_PATHS.filter((r) => checked(r) === !!r.na?.[c]).map((r) => r.path);
      expect(unexplained).toEqual([]);
    },
  );

  it("are counted from the checks that passed above, out of the paths the spec parser finds", () => {
    const specCount = specPaths().length;
    const settable = withNa("override");
    const rendered = withNa("default");
    const asserted = new Set(Object.values(passed).flatMap((set) => [...set]));
    const totals = {
      specPaths: specCount,
      settable: `${passed.override.size}/${specCount} render an override that differs from the default (${n - settable.applicable} not applicable: ${JSON.stringify(settable.na)})`,
      validated: `${passed.validated.size}/${specCount} refuse a bad, changed, missing or plaintext value naming the path`,
      renderedWithSpecDefault: `${passed.specDefault.size}/${specCount} render the reference's literal default`,
      defaultOtherwise: {
        generatedBySource: passed.generated.size,
        leftToTheChart: passed.chart.size,
        programChoice: passed.choice.size,
        deviation: passed.deviation.size,
        notApplicable: rendered.na,
      },
      asserted: `${asserted.size}/${specCount} with at least one check (the rest: another name for paths other rows check)`,
    };
    console.info(`conformance totals: ${JSON.stringify(totals, null, 2)}`);
    expect(n).toBe(specCount);
    const defaults =
      passed.specDefault.size + passed.generated.size + passed.chart.size + passed.choice.size + passed.deviation.size;
    // A row only another name for paths other rows check (every column not applicable) has nothing to assert.
    const aliases = SPEC_PATHS.filter((r) => r.na?.default === NA.alias && r.na?.override === NA.alias).length;
    expect([passed.override.size, defaults, asserted.size]).toEqual([
      settable.applicable,
      rendered.applicable,
      n - aliases,
    ]);
  });
});
