/** Text helpers shared by the agents: message text and token-sized pieces. */
import type { ChatMessage } from "./types.js";

/** The text of a message: a string, or its text parts joined. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

/** The latest user message's text: what offline agents answer. */
export function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return messageText(messages[i]);
  return "";
}

/** Splits text into word-sized pieces, each keeping its leading whitespace, as models stream them. */
export function pieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}
