/** Chat completion request builders. */
import http from "k6/http";
import type { RefinedResponse, ResponseType } from "k6/http";
import { authHeaders, url } from "./env.ts";

export function chatBody(model: string, content: string): string {
  return JSON.stringify({ model, stream: true, messages: [{ role: "user", content }] });
}

/** A chat body of exactly `bytes` bytes (ASCII padding), to probe the JSON limit. */
export function chatBodyOfSize(model: string, bytes: number): string {
  const pad = bytes - chatBody(model, "").length;
  if (pad < 0) throw new Error(`a chat body cannot be as small as ${bytes} bytes`);
  return chatBody(model, "a".repeat(pad));
}

export interface ChatParams {
  name: string;
  timeoutMs?: number;
  expected?: number[];
}

export function postChat(body: string, p: ChatParams): RefinedResponse<ResponseType | undefined> {
  return http.post(url("/v1/chat/completions"), body, {
    headers: authHeaders(undefined, { "Content-Type": "application/json", Accept: "text/event-stream" }),
    tags: { name: p.name },
    timeout: p.timeoutMs ?? 60_000,
    responseCallback: http.expectedStatuses(...(p.expected ?? [200])),
  });
}

/** True when a body is the OpenAI error envelope with all four fields. */
export function isErrorEnvelope(body: string | null | ArrayBuffer | undefined): boolean {
  if (typeof body !== "string") return false;
  try {
    const e = (JSON.parse(body) as { error?: Record<string, unknown> }).error;
    return !!e && typeof e.message === "string" && "type" in e && "param" in e && "code" in e;
  } catch {
    return false;
  }
}
