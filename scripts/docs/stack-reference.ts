/**
 * Every key of a stack file, read from the stack schema itself (infra/stack/schema.ts): the zod
 * schema gives each key's path, what it accepts and its default; the schema's own doc comments
 * (read with the TypeScript compiler's parser) give the descriptions.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import type { z } from "zod";
import { GROUPS, type GroupName } from "../../infra/stack/schema.js";

export interface StackKey {
  /** `group.key.sub`; `[]` marks a list's items, `.<name>` a map's entries. */
  path: string;
  accepts: string;
  /** The default as JSON, when the key has one. */
  defaultValue?: string;
  /** Absent and without a default: the stack must set it (when its feature is on). */
  required: boolean;
  description: string;
}

/** zod's internal definition; zod 4 keeps it on `_zod.def` for every schema. */
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  shape?: Record<string, Schema>;
  options?: Schema[];
  element?: Schema;
  valueType?: Schema;
  entries?: Record<string, string>;
  values?: unknown[];
  defaultValue?: unknown;
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean; minimum?: number } } }[];
  catchall?: Schema;
}
type Schema = { _zod: { def: Def } };
const defOf = (s: Schema | z.ZodType): Def => s._zod.def;

/** The number schemas of a pipe chain (`positiveInt().pipe(z.number().max(…))` checks both). */
function numberDefs(schema: Schema): Def[] {
  const def = defOf(schema);
  if (def.type === "number") return [def];
  return def.type === "pipe" ? [...numberDefs(def.in!), ...numberDefs(def.out!)] : [];
}

/** What a number accepts, from the checks of every number schema it passes (`int`, `min`, `max`). */
function numberText(defs: Def[]): string {
  let min: number | undefined;
  let max: number | undefined;
  let int = false;
  for (const check of defs.flatMap((d) => d.checks ?? [])) {
    const c = check._zod.def;
    if (c.check === "greater_than") min = Math.max(min ?? -Infinity, c.value! + (c.inclusive ? 0 : 1));
    if (c.check === "less_than") max = Math.min(max ?? Infinity, c.value! - (c.inclusive ? 0 : 1));
    if (c.check === "number_format") int = true;
  }
  const kind = int ? "integer" : "number";
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} ≥ ${min}`;
  return max !== undefined ? `${kind} ≤ ${max}` : kind;
}

/** What a schema accepts, in a few words. */
export function acceptsOf(schema: Schema): string {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
      return acceptsOf(def.innerType!);
    case "nullable":
      return `${acceptsOf(def.innerType!)} or null`;
    case "pipe":
      if (defOf(def.out!).type === "transform") return acceptsOf(def.in!);
      return defOf(def.out!).type === "number" ? numberText(numberDefs(schema)) : acceptsOf(def.out!);
    case "union": {
      const parts = [...new Set(def.options!.map(acceptsOf))];
      const boolean = parts.includes("boolean") && parts.includes("`true` or `false`");
      return (boolean ? parts.filter((p) => p !== "`true` or `false`") : parts).join(" or ");
    }
    case "enum": {
      const values = Object.values(def.entries!);
      if (values.length === 2 && values.includes("true") && values.includes("false")) return "`true` or `false`";
      return `one of ${values.map((v) => `\`${v}\``).join(", ")}`;
    }
    case "literal":
      return def.values!.map((v) => `\`${JSON.stringify(v)}\``).join(" or ");
    case "number":
      return numberText([def]);
    case "string":
      return "text";
    case "boolean":
      return "boolean";
    case "array":
      return defOf(def.element!).type === "object" ? "list of objects" : `list of ${acceptsOf(def.element!)}`;
    case "record":
      return `map of text to ${acceptsOf(def.valueType!)}`;
    case "object":
      return def.catchall && defOf(def.catchall).type !== "never" ? "object (other keys allowed)" : "object";
    default:
      return "any value";
  }
}

/** The schema under optional/default wrappers and transforms, with what the wrappers said. */
function unwrap(schema: Schema): { core: Schema; optional: boolean; defaultValue?: unknown } {
  let s = schema;
  let optional = false;
  let defaultValue: unknown;
  for (;;) {
    const def = defOf(s);
    if (def.type === "optional" || def.type === "nullable") optional = true;
    else if (def.type === "default" || def.type === "prefault") defaultValue ??= def.defaultValue;
    else if (def.type === "pipe") {
      if (defOf(def.out!).type !== "transform") break;
      s = def.in!;
      continue;
    } else if (def.type !== "readonly") break;
    s = def.innerType!;
  }
  return { core: s, optional, defaultValue };
}

/** The keys of one schema, depth first, in the order the schema declares them. */
function keysOf(schema: Schema, path: string, docs: Map<string, string>, out: StackKey[]): void {
  const { core, optional, defaultValue } = unwrap(schema);
  const def = defOf(core);
  const objectLike = def.type === "object";
  const shown = defaultValue === undefined || (objectLike && JSON.stringify(defaultValue) === "{}");
  out.push({
    path,
    accepts: acceptsOf(schema),
    defaultValue: shown ? undefined : JSON.stringify(defaultValue),
    required: !optional && defaultValue === undefined,
    description: docs.get(path.replace(/\[\]/g, "").replace(/\.<name>/g, "")) ?? "",
  });
  if (objectLike) for (const [k, v] of Object.entries(def.shape!)) keysOf(v, `${path}.${k}`, docs, out);
  const item = def.type === "array" ? def.element : def.type === "record" ? def.valueType : undefined;
  if (item && defOf(unwrap(item).core).type === "object") {
    const inner: StackKey[] = [];
    keysOf(item, `${path}${def.type === "array" ? "[]" : ".<name>"}`, docs, inner);
    out.push(...inner.slice(1));
  }
}

/** `/** … *\/` comments of the schema files, by the path of the property they sit on. */
export function schemaComments(dir: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const name of readdirSync(dir).filter((f) => /^schema.*\.ts$/.test(f))) {
    const file = ts.createSourceFile(name, readFileSync(join(dir, name), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, prefix: string): void => {
      if (ts.isObjectLiteralExpression(node)) {
        for (const prop of node.properties) {
          if (!ts.isPropertyAssignment(prop)) continue;
          const key = `${prefix}.${prop.name.getText(file).replace(/^["']|["']$/g, "")}`;
          const doc = ts.getJSDocCommentsAndTags(prop).find(ts.isJSDoc);
          const text = doc && ts.getTextOfJSDocComment(doc.comment);
          if (text) docs.set(key, text.replace(/\s+/g, " ").trim());
          visit(prop.initializer, key);
        }
        return;
      }
      // component(extra, env) (infra/stack/fields.ts): its second argument is the component's `env`.
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "component") {
        if (node.arguments[0]) visit(node.arguments[0], prefix);
        if (node.arguments[1]) visit(node.arguments[1], `${prefix}.env`);
        return;
      }
      ts.forEachChild(node, (child) => visit(child, prefix));
    };
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const decl of statement.declarationList.declarations)
        if (decl.initializer && ts.isIdentifier(decl.name)) visit(decl.initializer, decl.name.text);
    }
  }
  return docs;
}

/** Every key of every group, by group. */
export function describeStack(schemaDir: string): Map<GroupName, StackKey[]> {
  const docs = schemaComments(schemaDir);
  const groups = new Map<GroupName, StackKey[]>();
  for (const [group, schema] of Object.entries(GROUPS) as [GroupName, z.ZodType][]) {
    const keys: StackKey[] = [];
    keysOf(schema, group, docs, keys);
    groups.set(group, keys.slice(1)); // the group itself is the section's heading
  }
  return groups;
}
