/**
 * The JSON body parser: Fastify's own (secure-json-parse, which refuses __proto__ poisoning),
 * after a depth check. A few MB of `[[[[…` parse and validate recursively and hold the event loop
 * for seconds; no request of ours nests deeper than a handful of levels (tool schemas inside
 * messages go deepest), so anything past MAX_DEPTH is refused before parsing.
 *
 * Hand-written because JSON.parse has no depth limit and the well-kept parsers that have one are
 * either much slower or a native add-on; this is one linear pass over the text.
 *
 * An empty body with a JSON content type is no body, on a route that takes none (a DELETE, a
 * bodyless POST): OpenAI's official Python SDK sends `Content-Type: application/json` on every
 * request that is not a GET, body or not (openai-python `_base_client.py`, `default_headers` and
 * `_build_request`), and OpenAI accepts it. A route that needs a body still says it is empty.
 */
import type { FastifyInstance } from "fastify";
import { invalidJson } from "../errors.js";

export const MAX_DEPTH = 64;

/** Nesting depth of a JSON text, stopping as soon as it passes `limit`. Strings are skipped. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

export function useDepthCheckedJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "" && request.routeOptions.schema?.body === undefined) return done(null, undefined);
    if (jsonDepthExceeds(body as string, MAX_DEPTH))
      return done(invalidJson(`nesting deeper than ${MAX_DEPTH} levels`), undefined);
    // Fastify's default JSON parser is its callback form (the type is a union with the async one).
    void parse(request, body as string, done);
  });
}
