/**
 * POST /v1/completions: OpenAI's legacy text completions, as vLLM, LiteLLM and lm-evaluation-harness
 * (`local-completions`) send them. The body's fields are OpenAI's (`CreateCompletionRequest`); the
 * answer is a `text_completion`, and each streamed chunk has the same shape.
 */
import { Type, type Static, type TSchema } from "typebox";

const MAX_INT32 = 2 ** 31 - 1;
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const tokenIds = Type.Array(Type.Integer({ minimum: 0, maximum: MAX_INT32 }), { minItems: 1 });

export const CompletionBody = Type.Object(
  {
    /** The agent to ask, as GET /v1/models lists it. */
    model: Type.String({ minLength: 1 }),
    /** The text to continue; a list of texts or token ids only for an agent whose upstream has the API (`completions: true`). */
    prompt: Type.Union([
      Type.String(),
      Type.Array(Type.String(), { minItems: 1, maxItems: 2048 }),
      tokenIds,
      Type.Array(tokenIds, { minItems: 1, maxItems: 2048 }),
    ]),
    /** true: Server-Sent Events of text_completion chunks; otherwise one text_completion. */
    stream: nullable(Type.Boolean()),
    stream_options: nullable(
      Type.Object(
        { include_usage: Type.Optional(Type.Boolean()), include_obfuscation: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    /** Most tokens to generate; OpenAI's default is 16, and a translated request gets the same. */
    max_tokens: nullable(Type.Integer({ minimum: 0, maximum: MAX_INT32 })),
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    n: nullable(Type.Integer({ minimum: 1, maximum: 128 })),
    stop: nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])),
    presence_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    logit_bias: nullable(
      Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 }), { maxProperties: 1024 }),
    ),
    seed: nullable(Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })),
    user: Type.Optional(Type.String()),
    /** Relayed only (an upstream with the API): log probabilities of the `logprobs` likeliest tokens. */
    logprobs: nullable(Type.Integer({ minimum: 0, maximum: 5 })),
    /** Relayed only: the prompt repeated before the answer. */
    echo: nullable(Type.Boolean()),
    /** Relayed only: the text after the insertion. */
    suffix: nullable(Type.String()),
    /** Relayed only: candidates generated upstream, the best `n` returned. */
    best_of: nullable(Type.Integer({ minimum: 1, maximum: 20 })),
  },
  { additionalProperties: false },
);
export type CompletionBody = Static<typeof CompletionBody>;

/** The answer (written as text by text-chunks.ts; this type is the contract and the API document's). */
export const TextCompletion = Type.Object({
  /** `cmpl-…`, the same for every chunk of one answer. */
  id: Type.String(),
  object: Type.Literal("text_completion"),
  created: Type.Integer(),
  /** The model id the request named. */
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      text: Type.String(),
      index: Type.Integer(),
      /** An upstream's log probabilities (relayed); null otherwise. */
      logprobs: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
      /** "stop", "length" or "content_filter"; null on a stream's chunks until the last. */
      finish_reason: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  usage: Type.Optional(
    Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }),
  ),
});
