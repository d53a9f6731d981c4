/**
 * The one SSE decoder, for upstream streams (llm agents), the bench and the load-test harness:
 * eventsource-parser applies the WHATWG rules (`\r\n`, `\n` or a lone `\r` end a line, `:`
 * comments, multi-line data joined by `\n`, other fields ignored) and this gives it a pull shape
 * over network chunks: each `push` returns the events the chunk completed. (The k6 scripts keep
 * their own small reader in loadtest/k6/lib/sse.ts: k6 cannot import npm modules.)
 *
 * Bytes become text through Node's StringDecoder, which keeps a character split between reads
 * whole as TextDecoder's stream mode does, at a fraction of its cost: a 20-token stream's bytes
 * took 3.7 µs against 0.8 in a loop, and about 10 µs against none in a relay under load
 * (TextDecoder's stream mode goes through an ICU converter).
 */
import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceParser } from "eventsource-parser";

export type SseItem = { kind: "data"; data: string } | { kind: "comment"; text: string };

const NONE: SseItem[] = [];

/**
 * The most text one event (or one unfinished line) may hold: a stream that sends more without an
 * event's end is refused, not held in memory. Far above any model's chunk, or a whole answer sent
 * as one event.
 */
export const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** A stream sent more than the reader's limit without ending an event. */
export class SseEventTooLarge extends Error {
  /** The events the read completed before the limit was passed. */
  readonly items: SseItem[];
  constructor(limit: number, items: SseItem[]) {
    super(`an event over ${limit} characters`);
    this.name = "SseEventTooLarge";
    this.items = items;
  }
}

export class SseReader {
  private readonly decoder = new StringDecoder("utf8");
  private readonly parser: EventSourceParser;
  private items: SseItem[] = NONE;
  /** Some text has been read: a byte order mark now is part of the text. */
  private started = false;
  private overflowed = false;
  private readonly maxEventChars: number;

  constructor(maxEventChars = MAX_EVENT_CHARS) {
    this.maxEventChars = maxEventChars;
    this.parser = createParser({
      onEvent: (event) => this.add({ kind: "data", data: event.data }),
      onComment: (text) => this.add({ kind: "comment", text: text.trim() }),
      // Other errors (an unknown field, a bad retry) are ignored, as an EventSource ignores them.
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.overflowed = true;
      },
      maxBufferSize: maxEventChars,
    });
  }

  /**
   * Feeds one network chunk; returns the events it completed. Past the limit it throws
   * SseEventTooLarge (carrying the events completed before), and again on every later call.
   */
  push(chunk: Uint8Array | string): SseItem[] {
    this.feed(typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    return this.take();
  }

  /** The body ended: a last event without its blank line still counts (upstreams cut it short). */
  end(): SseItem[] {
    this.feed(this.decoder.end() + "\n\n");
    return this.take();
  }

  /**
   * Feeds the parser. One byte order mark at the stream's start is dropped, as UTF-8 decoding
   * does (WHATWG Encoding); past the limit, nothing more is parsed and the reader throws.
   */
  private feed(text: string): void {
    if (!this.started && text !== "") {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!this.overflowed) this.parser.feed(text);
    if (this.overflowed) throw new SseEventTooLarge(this.maxEventChars, this.take());
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
