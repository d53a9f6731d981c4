import { describe, expect, it } from "vitest";
import { SseEventTooLarge, SseReader, type SseItem } from "../../service/src/sse/sse-reader.js";

/** Feeds text in pieces of `size` bytes (multi-byte characters split too) and ends the body. */
function read(text: string, size: number): SseItem[] {
  const reader = new SseReader();
  const bytes = new TextEncoder().encode(text);
  const out: SseItem[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...reader.push(bytes.subarray(i, i + size)));
  return [...out, ...reader.end()];
}

describe("the one SSE reader", () => {
  const shown = (items: SseItem[]) => items.map((i) => (i.kind === "data" ? i.data : `:${i.text}`));

  it("ends lines at \\r\\n, \\n or a lone \\r, across any chunk boundary", () => {
    const text = "data: one\r\n\r\ndata: two\r\rdata: three\n\n";
    for (const size of [1, 2, 3, 5, 100]) expect(shown(read(text, size))).toEqual(["one", "two", "three"]);
  });

  it("reports comments (heartbeats), joins multi-line data, ignores other fields", () => {
    const text = ": keep-alive\n\nevent: message\nid: 7\ndata: a\ndata: b\n\nretry: 10\ndata: [DONE]\n\n";
    expect(shown(read(text, 4))).toEqual([":keep-alive", "a\nb", "[DONE]"]);
  });

  it("keeps multi-byte characters whole when a chunk splits them", () => {
    expect(shown(read('data: {"content":"日本語 ✓"}\n\n', 1))).toEqual(['{"content":"日本語 ✓"}']);
  });

  it("drops a byte order mark at the start of the stream, even split across reads, and keeps one anywhere else", () => {
    for (const size of [1, 2, 100])
      expect(shown(read("\ufeffdata: a\n\ndata: \ufeffb\n\n", size))).toEqual(["a", "\ufeffb"]);
  });

  it("reads bytes that are not UTF-8 as U+FFFD, as a browser's EventSource does", () => {
    const reader = new SseReader();
    const bytes = Uint8Array.from([
      ...new TextEncoder().encode("data: a"),
      0xff,
      0xc3,
      ...new TextEncoder().encode("b\n\n"),
    ]);
    expect(shown(reader.push(bytes))).toEqual(["a\ufffd\ufffdb"]);
  });

  it("refuses a stream that sends more than its limit without ending an event, in one read or many, and takes one just under it", () => {
    const under = new SseReader(1000);
    expect(shown(under.push(`data: ${"x".repeat(900)}\n\n`))).toEqual(["x".repeat(900)]);
    const cut = new SseReader(1000);
    const err = (() => {
      try {
        cut.push(`data: a\n\ndata: ${"x".repeat(1200)}`);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SseEventTooLarge);
    expect(shown((err as SseEventTooLarge).items)).toEqual(["a"]); // the event before it still counts
    const trickled = new SseReader(1000);
    expect(() => {
      for (let i = 0; i < 20; i++) trickled.push(`data: ${"y".repeat(90)}\n`); // one event's lines, never its blank line
    }).toThrow(SseEventTooLarge);
    expect(() => trickled.push("\n")).toThrow(SseEventTooLarge); // and it stays refused
  });

  it("still counts a last event whose blank line never came (a cut upstream)", () => {
    expect(shown(read('data: {"error":{"message":"boom"}}', 7))).toEqual(['{"error":{"message":"boom"}}']);
  });
});
