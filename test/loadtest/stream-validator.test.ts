import { describe, expect, it } from "vitest";
import { SseEvents, type SseEvent } from "../../loadtest/harness/sse-events.js";
import { validateStream } from "../../loadtest/harness/stream-validator.js";

const chunk = (id: string, delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "agentport/s", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const good = (id = "chatcmpl-1") =>
  [
    chunk(id, { role: "assistant", content: "" }),
    ": keep-alive\n\n",
    chunk(id, { content: "a" }),
    chunk(id, { content: "b" }),
    chunk(id, {}, "stop"),
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model: "agentport/s", choices: [], usage: { total_tokens: 2 } })}\n\n`,
    "data: [DONE]\n\n",
  ].join("");

/** Parses text delivered in pieces of `size` bytes, stamping each piece with its index. */
function parse(text: string, size = 7): SseEvent[] {
  const p = new SseEvents();
  const bytes = new TextEncoder().encode(text);
  const out: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...p.push(bytes.subarray(i, i + size), i));
  return out;
}

describe("SSE events of a chat stream", () => {
  it("splits events at blank lines across arbitrary chunk boundaries, CRLF included", () => {
    const text = "data: one\r\n\r\n: ping\r\ndata: t\ndata: wo\n\n";
    for (const size of [1, 2, 3, 50]) {
      const evs = parse(text, size);
      expect(evs.map((e) => (e.kind === "data" ? e.data : `:${e.text}`))).toEqual(["one", ":ping", "t\nwo"]);
    }
  });

  it("stamps each event with the arrival time of the bytes that completed it", () => {
    const p = new SseEvents();
    expect(p.push('data: {"id":', 1)).toEqual([]);
    expect(p.push("1}\n\n: ping\n\n", 2)).toEqual([
      { kind: "data", data: '{"id":1}', at: 2 },
      { kind: "comment", text: "ping", at: 2 },
    ]);
  });
});

describe("stream validator", () => {
  it("accepts a well-formed stream and counts content, heartbeats and the usage chunk", () => {
    const r = validateStream(parse(good()), { model: "agentport/s", contentChunks: 2 });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({
      ok: true,
      id: "chatcmpl-1",
      text: "ab",
      contentChunks: 2,
      heartbeats: 1,
      done: true,
      finishReason: "stop",
    });
    expect(r.contentTimes).toHaveLength(2);
  });

  it("rejects a first delta without the role", () => {
    const r = validateStream(parse(good().replace('"role":"assistant",', "")));
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/first chunk has no role/);
  });

  it("rejects chunks of another response mixed in (interleaving)", () => {
    const mixed = good().replace(chunk("chatcmpl-1", { content: "b" }), chunk("chatcmpl-2", { content: "b" }));
    expect(validateStream(parse(mixed)).errors.join()).toMatch(/interleaved/);
  });

  it("rejects a stream cut before [DONE] or before finish_reason (truncation)", () => {
    const noDone = good().replace("data: [DONE]\n\n", "");
    expect(validateStream(parse(noDone)).errors).toEqual(["no [DONE] (truncated)"]);
    const cut = good().slice(0, good().indexOf('"content":"b"'));
    expect(validateStream(parse(cut)).errors).toEqual(["no finish_reason (truncated)"]);
    expect(validateStream(parse(good()), { contentChunks: 3 }).errors[0]).toMatch(/expected 3/);
  });

  it("rejects another finish reason, data after [DONE] and error events", () => {
    expect(validateStream(parse(good().replace('"finish_reason":"stop"', '"finish_reason":"length"'))).ok).toBe(false);
    expect(validateStream(parse(good() + chunk("chatcmpl-1", { content: "x" }))).errors).toContain("data after [DONE]");
    const err =
      chunk("chatcmpl-1", { role: "assistant", content: "" }) + `data: {"error":{"message":"upstream down"}}\n\n`;
    expect(validateStream(parse(err)).errors[0]).toBe("error event: upstream down");
  });

  it("shows what a server sent when it is not a string (an error object, a numeric finish reason), not [object Object]", () => {
    const opened = chunk("chatcmpl-1", { role: "assistant", content: "" });
    const err = opened + `data: {"error":{"message":{"detail":"upstream down"}}}\n\n`;
    expect(validateStream(parse(err)).errors[0]).toBe('error event: {"detail":"upstream down"}');
    const odd = parse(good().replace('"finish_reason":"stop"', '"finish_reason":{"why":1}'));
    expect(validateStream(odd).errors).toContain('chunk 3: finish_reason {"why":1}');
  });

  it("rejects a wrong model and a non-JSON chunk", () => {
    expect(validateStream(parse(good()), { model: "agentport/other" }).ok).toBe(false);
    expect(validateStream(parse("data: nope\n\n")).errors[0]).toMatch(/not JSON/);
  });
});
