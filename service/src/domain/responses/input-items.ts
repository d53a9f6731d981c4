/**
 * The `input` of a Responses request checked item by item and normalized: a string is one user
 * message; a list holds messages (string content or `input_text`/`input_image` parts, assistant
 * echoes with `output_text`/`refusal` parts), `function_call` and `function_call_output` items
 * (their `id` and `status` accepted, as the Agents SDK sends them). `reasoning` items are dropped:
 * no upstream chat model can read them back. Anything else is a 400 naming the item's param.
 */
import { invalidParam, missingParam } from "../../errors.js";
import { newId } from "./ids.js";
import type { ContentPart, InputItem } from "./types.js";

const ROLES = new Set(["user", "assistant", "system", "developer"]);
type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

function str(item: Raw, field: string, param: string, optional = false): string | undefined {
  const value = item[field];
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw missingParam(`${param}.${field}`);
  }
  if (typeof value !== "string")
    throw invalidParam(
      `${param}.${field}`,
      `Invalid type for '${param}.${field}': expected a string.`,
      "invalid_value",
    );
  return value;
}

function part(raw: unknown, param: string): ContentPart {
  if (!isObject(raw)) throw invalidParam(param, `Invalid type for '${param}': expected a content part object.`);
  const type = raw.type;
  if (type === "input_text" || type === "output_text") return { type, text: str(raw, "text", param)! };
  if (type === "refusal") return { type, refusal: str(raw, "refusal", param)! };
  if (type === "input_image") {
    const url = str(raw, "image_url", param, true);
    if (url === undefined)
      throw invalidParam(
        `${param}.image_url`,
        `Only images given by 'image_url' are supported ('file_id' is not).`,
        "unsupported_value",
      );
    const detail = str(raw, "detail", param, true);
    return { type, image_url: url, ...(detail !== undefined && { detail }) };
  }
  throw invalidParam(
    `${param}.type`,
    `Invalid content type '${String(type).slice(0, 64)}' in '${param}': supported are input_text, input_image, output_text and refusal.`,
    "unsupported_value",
  );
}

function message(raw: Raw, param: string): InputItem {
  const role = raw.role;
  if (typeof role !== "string" || !ROLES.has(role))
    throw invalidParam(
      `${param}.role`,
      `Invalid value for '${param}.role': expected user, assistant, system or developer.`,
    );
  const content = raw.content;
  if (typeof content === "string") return { type: "message", role: role as "user", content };
  if (!Array.isArray(content))
    throw invalidParam(
      `${param}.content`,
      `Invalid type for '${param}.content': expected a string or a list of content parts.`,
    );
  return { type: "message", role: role as "user", content: content.map((p, j) => part(p, `${param}.content[${j}]`)) };
}

function item(raw: unknown, param: string): InputItem | undefined {
  if (!isObject(raw)) throw invalidParam(param, `Invalid type for '${param}': expected an input item object.`);
  const type = raw.type ?? (raw.role !== undefined ? "message" : undefined);
  if (type === "message") return message(raw, param);
  const extra = {
    ...(typeof raw.id === "string" && { id: raw.id }),
    ...(typeof raw.status === "string" && { status: raw.status }),
  };
  if (type === "function_call")
    return {
      type,
      call_id: str(raw, "call_id", param)!,
      name: str(raw, "name", param)!,
      arguments: str(raw, "arguments", param)!,
      ...extra,
    };
  if (type === "function_call_output") {
    const output = raw.output;
    const text = Array.isArray(output)
      ? output.map((p, j) => textOf(part(p, `${param}.output[${j}]`))).join("")
      : str(raw, "output", param)!;
    return { type, call_id: str(raw, "call_id", param)!, output: text, ...extra };
  }
  if (type === "reasoning") return undefined;
  throw invalidParam(
    `${param}.type`,
    `Invalid input item type '${(typeof type === "string" ? type : String(JSON.stringify(type))).slice(0, 64)}' in '${param}': supported are message, function_call, function_call_output and reasoning.`,
    "unsupported_value",
  );
}

/** The text a part carries (none for an image). */
export function textOf(p: ContentPart): string {
  return p.type === "input_image" ? "" : p.type === "refusal" ? p.refusal : p.text;
}

const PREFIX = { message: "msg", function_call: "fc", function_call_output: "fco" } as const;

/** The request's `input` as items (a string is one user message), each with an id (its own, or a new one) to list it by. */
export function inputItems(input: string | unknown[]): InputItem[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: input, id: newId("msg") }];
  const items: InputItem[] = [];
  input.forEach((raw, i) => {
    const normalized = item(raw, `input[${i}]`);
    if (normalized) items.push({ ...normalized, id: normalized.id ?? newId(PREFIX[normalized.type]) });
  });
  return items;
}

/** An item as OpenAI lists input items: a message's string content as one text part. */
export function listedItem(item: InputItem): InputItem {
  if (item.type !== "message" || typeof item.content !== "string") return item;
  return { ...item, content: [{ type: item.role === "assistant" ? "output_text" : "input_text", text: item.content }] };
}
