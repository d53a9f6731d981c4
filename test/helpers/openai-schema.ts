/**
 * Validates what the service sends against OpenAI's own OpenAPI document, vendored at a pinned
 * commit (test/fixtures/openai-openapi/). The whole document is added to Ajv (JSON Schema 2020-12,
 * OpenAPI 3.1's dialect) under one id, and each operation's response schema is compiled from a
 * `$ref` into it, so every `#/components/schemas/…` reference resolves as the document means it.
 * Ajv is Fastify's own validator, already the service's; @readme/openapi-parser (used below to
 * check the vendored file is a valid OpenAPI document) dereferences into object cycles, which a
 * validator cannot compile, so the references are left to Ajv.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export const VENDORED_DIR = new URL("../fixtures/openai-openapi/", import.meta.url);
export const VENDORED_FILE = new URL("openapi.json", VENDORED_DIR);
/** The vendored file's SHA-256, as its README records it: a change must be deliberate. */
export const VENDORED_SHA256 = "bbfd19abcde0e7412da99378deb2a959ccdd3a812f97c9e35901921e8e973f9a";

const text = readFileSync(VENDORED_FILE, "utf8");
export const vendoredSha256 = createHash("sha256").update(text).digest("hex");
export const openapi = JSON.parse(text) as {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};

/**
 * `nullable` is OpenAPI 3.0's; in a 3.1 document it means nothing, yet OpenAI's still carries it
 * (111 times, on fields OpenAI does send as null: a stream chunk's `finish_reason`), sometimes beside
 * no `type` (a `$ref`: a chunk's `usage`), which Ajv refuses to compile. It is rewritten, in
 * memory, the way 3.1 says it: `null` added to the `type` and to an `enum`; beside no `type`, the
 * schema becomes `anyOf: [the schema, {type: "null"}]`.
 */
function nullableAs31(node: unknown): void {
  if (Array.isArray(node)) return node.forEach((item) => nullableAs31(item));
  if (typeof node !== "object" || node === null) return;
  const o = node as Record<string, unknown>;
  if ("nullable" in o) {
    const nullable = o.nullable === true;
    delete o.nullable;
    if (nullable && o.type === undefined) {
      const schema = { ...o };
      for (const key of Object.keys(o)) delete o[key];
      o.anyOf = [schema, { type: "null" }];
    } else if (nullable) {
      if (typeof o.type === "string") o.type = [o.type, "null"];
      if (Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
    }
  }
  Object.values(o).forEach((value) => nullableAs31(value));
}
nullableAs31(openapi);

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** The `type` values a union branch stands for (its `type` property's const or enum, through `$ref` and `allOf`). */
function typeValues(branch: unknown, depth = 0): unknown[] | undefined {
  let schema = branch;
  if (isNode(schema) && typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/"))
    schema = openapi.components.schemas[schema.$ref.slice("#/components/schemas/".length)];
  if (!isNode(schema) || depth > 4) return undefined;
  const type = isNode(schema.properties) ? schema.properties.type : undefined;
  if (isNode(type) && type.const !== undefined) return [type.const];
  if (isNode(type) && Array.isArray(type.enum)) return type.enum;
  if (!Array.isArray(schema.allOf)) return undefined;
  for (const part of schema.allOf) {
    const values = typeValues(part, depth + 1);
    if (values) return values;
  }
  return undefined;
}

/**
 * OpenAI's unions of objects told apart by `type` (output items, stream events: dozens of
 * branches) are rewritten, in memory, to check the branch the body's `type` names: Ajv would
 * otherwise report every other branch's missing properties, burying the one that matters. A body
 * without a `type`, or of a type no branch names, is checked against the union as written.
 */
function discriminate(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(discriminate);
  if (!isNode(node)) return;
  Object.values(node).forEach(discriminate);
  for (const union of ["anyOf", "oneOf"] as const) {
    const branches = node[union];
    if (!Array.isArray(branches) || branches.length < 2) continue;
    const values = branches.map((branch) => typeValues(branch));
    if (values.some((v) => v === undefined)) continue;
    // Branches that share a type value (an input and an output message) stay a union among themselves.
    const byType = new Map<unknown, unknown[]>();
    branches.forEach((branch, i) => values[i]!.forEach((v) => byType.set(v, [...(byType.get(v) ?? []), branch])));
    delete node[union];
    const chosen = [...byType].map(([value, among]) => ({
      if: { properties: { type: { const: value } } },
      then: among.length === 1 ? among[0] : { [union]: among },
    }));
    const rewritten = {
      if: { type: "object", required: ["type"], properties: { type: { enum: [...byType.keys()] } } },
      then: { allOf: chosen },
      else: { [union]: branches },
    };
    node.allOf = [...(Array.isArray(node.allOf) ? node.allOf : []), rewritten];
  }
}
discriminate(openapi);

const DOC_ID = "openai-openapi";
// ajv-formats is CommonJS with a default export; under NodeNext the default is the module.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
// OpenAI's own format for Unix seconds.
ajv.addFormat("unixtime", { type: "number", validate: (n: number) => Number.isInteger(n) });
ajv.addSchema(openapi, DOC_ID);

/** A JSON pointer's token: `/` and `~` escaped. */
const token = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");

const compiled = new Map<string, ValidateFunction>();

function compile(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/** An operation of the document, as OpenAI's paths spell it (`/responses/{response_id}`). */
export interface Operation {
  method: "get" | "post" | "delete";
  path: string;
  /** The response status whose schema applies; 200 unless said. */
  status?: string;
  /** `application/json` unless said; `text/event-stream` for a stream's events. */
  media?: string;
}

/** The JSON pointer of an operation's response schema; throws if the document has none. */
export function schemaPointer(op: Operation): string {
  const status = op.status ?? "200";
  const media = op.media ?? "application/json";
  const response = openapi.paths[op.path]?.[op.method]?.responses?.[status] as
    { content?: Record<string, { schema?: unknown }>; $ref?: string } | undefined;
  if (!response) throw new Error(`OpenAI's document has no ${status} response for ${op.method} ${op.path}`);
  // A shared response (`#/components/responses/TooManyRequests`).
  const base = response.$ref
    ? response.$ref.slice(1)
    : `/paths/${token(op.path)}/${op.method}/responses/${token(status)}`;
  const resolved = response.$ref
    ? (openapi as unknown as { components: { responses: Record<string, typeof response> } }).components.responses[
        response.$ref.split("/").at(-1)!
      ]
    : response;
  if (!resolved?.content?.[media]?.schema)
    throw new Error(`OpenAI's document has no ${media} schema for ${op.method} ${op.path} ${status}`);
  return `${base}/content/${token(media)}/schema`;
}

/** A named component schema (`ErrorResponse`). */
export const componentPointer = (name: string) => `/components/schemas/${token(name)}`;

/**
 * A difference from OpenAI's schema that agentport makes on purpose: the errors it explains are
 * not failures. `where` matches the error's instance path, `keyword` its JSON Schema keyword.
 */
export interface Deviation {
  where: RegExp;
  keyword?: string;
  /** The missing or extra property it is about, when the error names one. */
  property?: string;
  why: string;
}

/** What a body breaks of the schema at `pointer`, one line each, after the deviations are taken out. */
export function schemaProblems(pointer: string, body: unknown, deviations: Deviation[] = []): string[] {
  const validate = compile(pointer);
  if (validate(body)) return [];
  return relevant(validate.errors ?? []).flatMap((e) =>
    deviations.some((d) => matches(d, e))
      ? []
      : [`${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`],
  );
}

function matches(d: Deviation, e: ErrorObject): boolean {
  if (!d.where.test(e.instancePath)) return false;
  if (d.keyword && d.keyword !== e.keyword) return false;
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (d.property && d.property !== (params.missingProperty ?? params.additionalProperty)) return false;
  return true;
}

/**
 * Ajv reports every branch of a failed `anyOf`/`oneOf`; the branches that failed only on their
 * discriminating `const`/`enum` (another event type, another item type) say nothing about the body.
 * They are dropped unless nothing else is left.
 */
function relevant(errors: ErrorObject[]): ErrorObject[] {
  const branchNoise = (e: ErrorObject) => e.keyword === "const" || e.keyword === "enum";
  // "must match the then schema" repeats, one level up, what the chosen branch said.
  const unions = (e: ErrorObject) => e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "if";
  const rest = errors.filter((e) => !branchNoise(e) && !unions(e));
  return rest.length ? rest : errors;
}
