/**
 * The embeddings request and answer, as OpenAI's API defines them: an unknown field is a 400
 * naming it; the known ones go to the upstream as sent.
 */
import { Type, type Static } from "typebox";

/** OpenAI's own bounds: 2048 inputs a request. */
const MAX_INPUTS = 2048;
const Tokens = Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 });

export const EmbeddingsBody = Type.Object(
  {
    /** The agent's model id (or alias); it must be an `llm` agent with `embeddings: true`. */
    model: Type.String({ minLength: 1 }),
    /** A text, texts, a token array or token arrays; never empty. */
    input: Type.Union([
      Type.String({ minLength: 1 }),
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_INPUTS }),
      Tokens,
      Type.Array(Tokens, { minItems: 1, maxItems: MAX_INPUTS }),
    ]),
    /** "float" (default) or "base64" (little-endian float32, what the openai SDKs ask for). */
    encoding_format: Type.Optional(Type.Enum(["float", "base64"])),
    /** Fewer dimensions, for models that support it. */
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    /** The end user, for the upstream's abuse monitoring. */
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type EmbeddingsBody = Static<typeof EmbeddingsBody>;

export const EmbeddingList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(
    Type.Object({
      object: Type.Literal("embedding"),
      /** Position of its input in the request. */
      index: Type.Integer(),
      /** The vector, or its base64 (little-endian float32) when asked. */
      embedding: Type.Union([Type.Array(Type.Number()), Type.String()]),
    }),
  ),
  /** The model id the request named. */
  model: Type.String(),
  usage: Type.Object({
    /** Tokens of the input (the upstream's count). */
    prompt_tokens: Type.Integer(),
    /** The same: embeddings have no completion. */
    total_tokens: Type.Integer(),
  }),
});
