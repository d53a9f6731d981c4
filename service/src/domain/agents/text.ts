/** Text helpers shared by the agents: message text and token-sized pieces. */
import type { ChatMessage } from "./types.js";

/** The text of a message: a string, or its text parts joined. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

/** The first `max` characters of a message's text, without joining all of its parts first. */
function messageTextUpTo(message: ChatMessage, max: number): string {
  const { content } = message;
  if (typeof content === "string") return content.slice(0, max);
  let text = "";
  for (const p of content ?? []) {
    if (text.length >= max) break;
    if (typeof p.text === "string") text += p.text.slice(0, max - text.length);
  }
  return text;
}

/** The latest user message's text (its first `max` characters): what offline agents answer. */
export function lastUserText(messages: ChatMessage[], max = Infinity): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role === "user") return messageTextUpTo(messages[i], max);
  return "";
}

/** Splits text into word-sized pieces, each keeping its leading whitespace, as models stream them. */
export function pieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}
