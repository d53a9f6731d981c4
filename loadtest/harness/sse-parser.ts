/**
 * Incremental SSE reader for chat streams, as openai-node reads them: `:` lines are
 * comments (heartbeats), `data:` lines of one event are joined, a blank line ends an event.
 * Each event carries the time its last byte arrived, for TTFT and inter-chunk latency.
 */

export type SseEvent =
  | { kind: "data"; data: string; at: number }
  | { kind: "comment"; text: string; at: number };

export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private readonly decoder = new TextDecoder();

  /** Feeds raw bytes; returns the events completed by them. */
  push(chunk: Uint8Array | string, at: number): SseEvent[] {
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const events: SseEvent[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\n|\r/)) !== -1) {
      const line = this.buffer.slice(0, nl);
      const sepLength = this.buffer.startsWith("\r\n", nl) ? 2 : 1;
      // A lone trailing \r may be the first half of \r\n: wait for the next byte.
      if (this.buffer[nl] === "\r" && sepLength === 1 && nl === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(nl + sepLength);
      this.line(line, at, events);
    }
    return events;
  }

  /** Bytes received after the last complete line (a stream cut mid-line leaves some). */
  get pending(): string {
    return this.buffer + (this.data.length ? this.data.join("\n") : "");
  }

  private line(line: string, at: number, events: SseEvent[]): void {
    if (line === "") {
      if (this.data.length) events.push({ kind: "data", data: this.data.join("\n"), at });
      this.data = [];
      return;
    }
    if (line.startsWith(":")) {
      events.push({ kind: "comment", text: line.slice(1).trim(), at });
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    // event:, id:, retry: carry nothing a chat stream needs.
  }
}
