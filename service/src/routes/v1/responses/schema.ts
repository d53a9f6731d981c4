/**
 * The Responses request and answer (OpenAI's shapes): the fields the official clients and the
 * Agents SDK send. Items of `input` and `tools` are checked one by one with errors naming them
 * (domain/responses/input-items.ts, translate.ts); an unknown top-level field is a 400 naming it.
 */
import { Type, type Static, type TSchema } from "typebox";

const MAX_INT32 = 2 ** 31 - 1;
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Anything = Type.Record(Type.String(), Type.Unknown());

/** OpenAI's own bound on input items is larger; the JSON body limit bounds their size anyway. */
export const MAX_INPUT_ITEMS = 2048;

export const ResponsesBody = Type.Object(
  {
    /** The agent to ask: `<MODEL_PREFIX>/<agent id>` or an alias, as GET /v1/models lists them. */
    model: Type.String({ minLength: 1 }),
    /** A user message as a string, or a list of input items (messages, function calls and their outputs). */
    input: Type.Union([Type.String(), Type.Array(Type.Unknown(), { maxItems: MAX_INPUT_ITEMS })]),
    /** A system message placed first; not carried over by `previous_response_id`. */
    instructions: nullable(Type.String()),
    /** Continue the conversation of a stored response of the project. */
    previous_response_id: nullable(Type.String({ minLength: 1, maxLength: 256 })),
    /** Keep the response (default true) so GET and `previous_response_id` find it. */
    store: nullable(Type.Boolean()),
    /** true: Server-Sent Events of response.* events; otherwise one response object. */
    stream: nullable(Type.Boolean()),
    /** Functions the model may call (`type: "function"`, top-level `name`, `parameters`, `strict`). */
    tools: Type.Optional(Type.Array(Anything, { maxItems: 128 })),
    /** "auto", "none", "required" or `{type: "function", name}`. */
    tool_choice: Type.Optional(Type.Union([Type.String(), Anything])),
    parallel_tool_calls: nullable(Type.Boolean()),
    /** Most tokens to generate; past it the response is `incomplete`. */
    max_output_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    /** Up to 16 string pairs kept with the response. */
    metadata: nullable(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }),
    ),
    /** `format`: text (default), json_object, or json_schema with `name`, `schema`, `strict`. */
    text: nullable(
      Type.Object(
        { format: Type.Optional(Anything), verbosity: nullable(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    /** Extra output to include; accepted, nothing of it is produced here. */
    include: nullable(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 32 })),
    /** Only "disabled" (the default): a conversation over the model's window is the upstream's error. */
    truncation: nullable(Type.String()),
    /** The end user's id, for the upstream's abuse monitoring. */
    user: Type.Optional(Type.String({ maxLength: 256 })),
    safety_identifier: Type.Optional(Type.String({ maxLength: 256 })),
    prompt_cache_key: Type.Optional(Type.String({ maxLength: 256 })),
    service_tier: nullable(Type.String()),
    /** `effort` goes to an upstream model as `reasoning_effort`. */
    reasoning: nullable(
      Type.Object(
        { effort: nullable(Type.String()), summary: nullable(Type.String()) },
        { additionalProperties: true },
      ),
    ),
    stream_options: nullable(
      Type.Object({ include_obfuscation: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
    /** Not supported here (a 400 names them when set): server-side conversations, prompt templates, background runs. */
    conversation: nullable(Type.Union([Type.String(), Anything])),
    prompt: nullable(Anything),
    background: nullable(Type.Boolean()),
    top_logprobs: nullable(Type.Integer({ minimum: 0, maximum: 20 })),
    max_tool_calls: nullable(Type.Integer({ minimum: 1, maximum: MAX_INT32 })),
    prompt_cache_retention: nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type ResponsesBody = Static<typeof ResponsesBody>;

export const ResponseIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 256 }) });

const Usage = Type.Object(
  {
    input_tokens: Type.Integer(),
    input_tokens_details: Type.Optional(Type.Object({ cached_tokens: Type.Integer() }, { additionalProperties: true })),
    output_tokens: Type.Integer(),
    output_tokens_details: Type.Optional(
      Type.Object({ reasoning_tokens: Type.Integer() }, { additionalProperties: true }),
    ),
    total_tokens: Type.Integer(),
  },
  { additionalProperties: true },
);
const opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * The response object; its output items (`message`, `function_call`) as OpenAI writes them. A
 * forwarded agent's is its upstream's own under this server's id: fields past the first six are
 * as the upstream wrote them, hence optional here.
 */
export const ResponseObject = Type.Object(
  {
    /** `resp_…`, the id GET, DELETE and `previous_response_id` take. */
    id: Type.String(),
    object: Type.Literal("response"),
    created_at: Type.Integer(),
    /** completed, incomplete (max_output_tokens or content_filter), failed, in_progress. */
    status: Type.String(),
    /** The model the request named. */
    model: Type.String(),
    output: Type.Array(Anything),
    error: opt(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true })),
    incomplete_details: opt(Type.Object({ reason: Type.String() }, { additionalProperties: true })),
    instructions: opt(Type.Union([Type.String(), Type.Array(Anything)])),
    max_output_tokens: opt(Type.Integer()),
    parallel_tool_calls: opt(Type.Boolean()),
    previous_response_id: opt(Type.String()),
    store: opt(Type.Boolean()),
    temperature: opt(Type.Number()),
    text: opt(Anything),
    tool_choice: Type.Optional(Type.Unknown()),
    tools: opt(Type.Array(Anything)),
    top_p: opt(Type.Number()),
    truncation: opt(Type.String()),
    usage: opt(Usage),
    user: opt(Type.String()),
    metadata: opt(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: true },
);

export const DeletedResponse = Type.Object({
  id: Type.String(),
  object: Type.Literal("response"),
  deleted: Type.Literal(true),
});

/** GET /v1/responses/{id}/input_items: the response's own input items, as a list page. */
export const InputItemList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(Anything),
  first_id: Type.Union([Type.String(), Type.Null()]),
  last_id: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
