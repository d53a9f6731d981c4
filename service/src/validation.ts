/**
 * Two validators: request bodies are checked as sent (no type coercion, unknown fields kept so the
 * schema can name them), while query strings and path params are coerced from their text form.
 *
 * Both are Fastify's own validator compiler (the Ajv it uses internally, with ajv-formats), built
 * twice with different options, because Fastify gives one option set to every part of a request.
 * Routes declare TypeBox schemas; this only checks them.
 */
import { AjvCompiler } from "@fastify/ajv-compiler";
import type { FastifySchemaCompiler } from "fastify";

function compiler(coerceTypes: false | "array"): FastifySchemaCompiler<unknown> {
  return AjvCompiler()(
    {},
    { customOptions: { coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false } },
  ) as FastifySchemaCompiler<unknown>;
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = compiler(false);
  const lenient = compiler("array");
  return (route) => (route.httpPart === "body" ? strict : lenient)(route);
}
