/**
 * The one SSE decoder, for upstream streams (llm agents), the bench and the load-test harness:
 * eventsource-parser applies the WHATWG rules (`\r\n`, `\n` or a lone `\r` end a line, `:`
 * comments, multi-line data joined by `\n`, other fields ignored) and this gives it a pull shape
 * over network chunks: each `push` returns the events the chunk completed. (The k6 scripts keep
 * their own small reader in loadtest/k6/lib/sse.ts: k6 cannot import npm modules.)
 */
import { createParser, type EventSourceParser } from "eventsource-parser";

export type SseItem = { kind: "data"; data: string } | { kind: "comment"; text: string };

const NONE: SseItem[] = [];

export class SseReader {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private items: SseItem[] = NONE;

  constructor() {
    this.parser = createParser({
      onEvent: (event) => this.add({ kind: "data", data: event.data }),
      onComment: (text) => this.add({ kind: "comment", text: text.trim() }),
    });
  }

  /** Feeds one network chunk; returns the events it completed. */
  push(chunk: Uint8Array | string): SseItem[] {
    this.parser.feed(typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }));
    return this.take();
  }

  /** The body ended: a last event without its blank line still counts (upstreams cut it short). */
  end(): SseItem[] {
    this.parser.feed(this.decoder.decode() + "\n\n");
    return this.take();
  }

  private add(item: SseItem): void {
    if (this.items === NONE) this.items = [];
    this.items.push(item);
  }

  private take(): SseItem[] {
    const out = this.items;
    this.items = NONE;
    return out;
  }
}
