/**
 * The chat completions request as validated: OpenAI's current fields, each with its type, nothing
 * else (an unknown field is a 400 naming it, as OpenAI answers). Nullable where OpenAI's own
 * schema allows null. What each agent kind does with each field: chat-request.ts.
 */
import { Type, type Static, type TSchema } from "typebox";

const MAX_INT32 = 2 ** 31 - 1;

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

export const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;

const ContentPart = Type.Object(
  { type: Type.String({ minLength: 1 }), text: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

// Clients echo assistant messages back with extra fields (refusal, annotations): tolerate them.
const Message = Type.Object(
  {
    role: Type.Enum([...ROLES]),
    content: nullable(Type.Union([Type.String(), Type.Array(ContentPart)])),
    name: Type.Optional(Type.String()),
    tool_calls: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    tool_call_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ChatBody = Type.Object(
  {
    /** The agent to ask: `<MODEL_PREFIX>/<agent id>`, as GET /v1/models lists them. */
    model: Type.String({ minLength: 1 }),
    /** The conversation, oldest first; the agent answers the last user message in its context. */
    messages: Type.Array(Message, { minItems: 1 }),
    /** true: Server-Sent Events of chat.completion.chunk; otherwise one chat.completion. */
    stream: nullable(Type.Boolean()),
    /** With `stream` only: `include_usage` adds a last chunk with the usage. */
    stream_options: nullable(
      Type.Object(
        { include_usage: Type.Optional(Type.Boolean()), include_obfuscation: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    /** Sampling temperature; passed to `llm` agents, ignored by offline ones. */
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
    /** Nucleus sampling; passed to `llm` agents, ignored by offline ones. */
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    // Upper bounds keep out Infinity (JSON's 1e400), which `type: integer` alone lets through.
    /** Most tokens to generate (legacy name); the answer ends with finish_reason "length" there. */
    max_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    /** Most tokens to generate (current name); wins over max_tokens when both are sent. */
    max_completion_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    /** Up to four sequences that end the answer. */
    stop: nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])),
    /** Number of choices: any for `llm` agents (the upstream's), 1 for offline ones. */
    n: nullable(Type.Integer({ minimum: 1, maximum: 128 })),
    /** The end user's id, for the upstream's abuse monitoring. */
    user: Type.Optional(Type.String()),
    /** Up to 16 string pairs kept with the request (OpenAI's shape). */
    metadata: nullable(Type.Record(Type.String(), Type.String({ maxLength: 512 }), { maxProperties: 16 })),
    /** Functions the model may call (`llm` agents only). */
    tools: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), { maxItems: 128 }),
    ),
    /** Which tool to call, "auto", "none" or "required" (`llm` agents only). */
    tool_choice: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    /** JSON mode or a JSON schema for the answer (`llm` agents only). */
    response_format: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    /** Legacy function calling (`llm` agents only). */
    functions: Type.Optional(
      Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: true }), { maxItems: 128 }),
    ),
    function_call: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
    /** Sampling and routing hints: passed to `llm` agents, ignored by offline ones. */
    seed: nullable(Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })),
    presence_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    logit_bias: nullable(
      Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 }), { maxProperties: 1024 }),
    ),
    reasoning_effort: nullable(Type.String()),
    verbosity: nullable(Type.String()),
    service_tier: nullable(Type.String()),
    store: nullable(Type.Boolean()),
    prompt_cache_key: Type.Optional(Type.String()),
    safety_identifier: Type.Optional(Type.String()),
    /** Log probabilities: an `llm` agent's upstream returns them; offline agents refuse `true`. */
    logprobs: nullable(Type.Boolean()),
    top_logprobs: nullable(Type.Integer({ minimum: 0, maximum: 20 })),
    /** Output types: an `llm` agent's upstream may answer in audio; offline agents answer "text" only. */
    modalities: nullable(Type.Array(Type.String(), { maxItems: 4 })),
    audio: nullable(Type.Object({}, { additionalProperties: true })),
    /** Predicted output and web search: the upstream's to use (`llm` agents only). */
    prediction: nullable(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    web_search_options: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

export type ChatBody = Static<typeof ChatBody>;

/**
 * Fields only an `llm` agent can honour: any other kind answers 400 `unsupported_parameter` naming
 * the field. An `llm` agent forwards every field of the body to its upstream as sent.
 */
export const LLM_ONLY = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "functions",
  "function_call",
  "prediction",
  "web_search_options",
] as const;
const Usage = Type.Object({
  /** Tokens of the request's messages. */
  prompt_tokens: Type.Integer(),
  /** Tokens of the answer. */
  completion_tokens: Type.Integer(),
  /** The two together. */
  total_tokens: Type.Integer(),
});

/** The upstream's log probabilities (`llm` agents asked for `logprobs`); null otherwise. */
const LogProbs = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

/** What a completion and each of its chunks start with. */
const answerHead = <T extends "chat.completion" | "chat.completion.chunk">(object: T) => ({
  /** `chatcmpl-…`, unique per answer; the same for every chunk of one answer. */
  id: Type.String(),
  object: Type.Literal(object),
  /** Unix seconds, the same for every chunk. */
  created: Type.Integer(),
  /** The model id the request named. */
  model: Type.String(),
  /** An `llm` agent's upstream's, as it sent it; absent for offline agents (OpenAI's schema: a string or nothing). */
  system_fingerprint: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/**
 * The non-streaming answer (chunks.ts writes it as text; this type is the contract). An `llm`
 * agent's is its upstream's own, under our id, model and created, with every field it sent.
 */
export const ChatCompletion = Type.Object({
  ...answerHead("chat.completion"),
  choices: Type.Array(
    Type.Object({
      /** 0, or each of the `n` choices an `llm` agent's upstream returned. */
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal("assistant"),
        /** The answer; null when the answer is tool calls only. */
        content: Type.Union([Type.String(), Type.Null()]),
        /** The upstream model's refusal (`llm` agents); null otherwise. */
        refusal: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        /** Calls the `llm` agent's upstream asked for, whole (arguments joined). */
        tool_calls: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
      }),
      logprobs: LogProbs,
      /** "stop", "length", "tool_calls" or "content_filter". */
      finish_reason: Type.String(),
    }),
  ),
  usage: Usage,
});

/**
 * One SSE event of a streamed answer (chunks.ts writes them as text, head prebuilt; this type is
 * the contract): the role first, then content or tool-call deltas, a last chunk with
 * `finish_reason`, and, when `stream_options.include_usage` asked for it, a chunk with `usage`
 * and no choices. An `llm` agent's are its upstream's own chunks under our id, model and created.
 */
export const ChatCompletionChunk = Type.Object({
  ...answerHead("chat.completion.chunk"),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({
        role: Type.Optional(Type.Literal("assistant")),
        content: Type.Optional(Type.String()),
        tool_calls: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
        refusal: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      }),
      logprobs: LogProbs,
      /** null until the last content chunk's successor. */
      finish_reason: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  usage: Type.Optional(Usage),
});
export type ChatCompletionChunk = Static<typeof ChatCompletionChunk>;
