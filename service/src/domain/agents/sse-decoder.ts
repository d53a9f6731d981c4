/**
 * Decodes an upstream Server-Sent Events body into `data` payloads: skips `:` comments and other
 * fields, joins multi-line data, handles events split across network chunks. Synchronous: one
 * `push` per network chunk returns the payloads it completed.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private data: string[] = [];

  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const out: string[] = [];
    let start = 0;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n", start)) !== -1) {
      const end = nl > start && this.buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      const line = this.buffer.slice(start, end);
      start = nl + 1;
      if (line === "") {
        if (this.data.length) out.push(this.data.length === 1 ? this.data[0] : this.data.join("\n"));
        this.data = [];
      } else if (line.startsWith("data:")) {
        this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** The body ended: a last event without its blank line still counts. */
  end(): string[] {
    if (this.buffer.startsWith("data:")) this.data.push(this.buffer.slice(this.buffer.charCodeAt(5) === 32 ? 6 : 5).trimEnd());
    this.buffer = "";
    const out = this.data.length ? [this.data.join("\n")] : [];
    this.data = [];
    return out;
  }
}
