/**
 * Two validators: request bodies are checked as sent (no type coercion, unknown fields kept so the
 * schema can name them), while query strings and path params are coerced from their text form.
 */
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function ajv(coerceTypes: false | "array"): Ajv {
  return addFormats(new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false }));
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = ajv(false);
  const lenient = ajv("array");
  return ({ schema, httpPart }) => (httpPart === "body" ? strict : lenient).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
}
