/**
 * Response schemas per status for every route: the success shape a route declares, and the one
 * error envelope for every 4xx and 5xx (errors.ts builds its contents). Fastify serializes each
 * answer with the schema of its status, and the API document is generated from the same schemas.
 */
import { Type, type TSchema } from "typebox";

/** `{"error":{"message","type","param","code"}}`, as the OpenAI SDKs read it. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      message: Type.String({ description: "What went wrong; never a secret or a stack trace." }),
      type: Type.String({ description: "The OpenAI error class, e.g. invalid_request_error." }),
      param: Type.Union([Type.String(), Type.Null()], { description: "The request parameter at fault." }),
      code: Type.Union([Type.String(), Type.Null()], { description: "Machine-readable code (errors.ts lists ours)." }),
    }),
  },
  { description: "An error, in the OpenAI envelope." },
);

/** A route's responses: its success shapes by status, and the error envelope for the rest. */
export function responses<T extends Record<number, TSchema>>(ok: T) {
  return { ...ok, "4xx": ErrorEnvelope, "5xx": ErrorEnvelope };
}
