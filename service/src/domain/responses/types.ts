/**
 * The Responses API's wire shapes as this service reads and writes them (OpenAI's, the fields the
 * official clients and the Agents SDK use). Input items are checked by input-items.ts.
 */

/** A text part of an input message (`input_text`), or an assistant's echoed `output_text`. */
export interface TextPart {
  type: "input_text" | "output_text";
  text: string;
}
/** An image part of an input message: a URL or a data URL. */
export interface ImagePart {
  type: "input_image";
  image_url: string;
  detail?: string;
}
export type ContentPart = TextPart | ImagePart | { type: "refusal"; refusal: string };

/** One conversation item, as the client sent it or as an answer's output carries it. */
export type InputItem =
  | {
      type: "message";
      role: "user" | "assistant" | "system" | "developer";
      content: string | ContentPart[];
      id?: string;
      status?: string;
    }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string; status?: string }
  | { type: "function_call_output"; call_id: string; output: string; id?: string; status?: string };

/** An answer's text part. */
export interface OutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

/** An output item of an answer: the assistant's message, or a call of one of the client's functions. */
export type OutputItem =
  | {
      type: "message";
      id: string;
      status: "completed" | "in_progress" | "incomplete";
      role: "assistant";
      content: Array<OutputText | { type: "refusal"; refusal: string }>;
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: "completed" | "in_progress" | "incomplete";
    };

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = "completed" | "incomplete" | "failed" | "in_progress";

/** The response object (`object: "response"`), as answered, stored and streamed. */
export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  /** The model the request named. */
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  store: boolean;
  temperature: number | null;
  text: { format: Record<string, unknown> };
  tool_choice: unknown;
  tools: Array<Record<string, unknown>>;
  top_p: number | null;
  truncation: "disabled";
  /** Absent until the answer is complete (OpenAI's schema has no null for it). */
  usage?: ResponseUsage;
  /** The request's `user`, absent when it sent none (OpenAI's schema: a string or nothing). */
  user?: string;
  metadata: Record<string, string>;
  [extra: string]: unknown;
}

/** A streaming event: its `type` is also the SSE `event:` line. */
export interface StreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}
