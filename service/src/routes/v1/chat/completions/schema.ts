/**
 * The chat completions request as validated: OpenAI's fields this service honours, nothing else
 * (an unknown field is a 400 naming it). Nullable where OpenAI's own schema allows null.
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
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(Message, { minItems: 1 }),
    stream: nullable(Type.Boolean()),
    stream_options: nullable(
      Type.Object(
        { include_usage: Type.Optional(Type.Boolean()), include_obfuscation: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    // Upper bounds keep out Infinity (JSON's 1e400), which `type: integer` alone lets through.
    max_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    max_completion_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    stop: nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])),
    n: nullable(Type.Integer({ minimum: 1, maximum: 128 })),
    user: Type.Optional(Type.String()),
    metadata: nullable(Type.Record(Type.String(), Type.String({ maxLength: 512 }), { maxProperties: 16 })),
    tools: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), { maxItems: 128 }),
    ),
    tool_choice: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
    // Forwarded to `llm` agents' upstream as sent.
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    seed: nullable(Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })),
    presence_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: nullable(Type.Number({ minimum: -2, maximum: 2 })),
    reasoning_effort: nullable(Type.String()),
  },
  { additionalProperties: false },
);

export type ChatBody = Static<typeof ChatBody>;

/** Fields only an `llm` agent can honour: any other kind answers 400 naming the field. */
export const LLM_ONLY = ["tools", "tool_choice", "parallel_tool_calls", "response_format"] as const;
/** Fields forwarded untouched to an `llm` agent's upstream. */
export const PASSTHROUGH = ["parallel_tool_calls", "response_format", "seed", "presence_penalty", "frequency_penalty", "reasoning_effort", "max_completion_tokens"] as const;

/** The non-streaming answer (a response schema also lets Fastify serialize it fast). */
export const ChatCompletion = Type.Object({
  id: Type.String(),
  object: Type.Literal("chat.completion"),
  created: Type.Integer(),
  model: Type.String(),
  system_fingerprint: Type.Null(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal("assistant"),
        content: Type.Union([Type.String(), Type.Null()]),
        refusal: Type.Null(),
        tool_calls: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
      }),
      logprobs: Type.Null(),
      finish_reason: Type.String(),
    }),
  ),
  usage: Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }),
});
