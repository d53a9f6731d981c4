/** Tool results: failures are results with `isError` (the model sees why), never transport errors. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../errors.js";

export const textResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });

/** JSON as text (what every client shows a model) plus the same value as structured content. */
export const jsonResult = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  structuredContent: value,
});

export const errorResult = (message: string): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
});

/** A message safe to show: our API errors say what went wrong; anything else stays generic. */
export function failureMessage(err: unknown, what: string): string {
  if (err instanceof ApiError) return `${what} failed: ${err.message}`;
  if (err instanceof Error && err.name === "AbortError") return `${what} was cancelled.`;
  return `${what} failed because of a server error.`;
}
