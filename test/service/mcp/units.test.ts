/** The MCP module's pure parts: tool names, Origin rules, text windows, the session registry. */
import { describe, expect, it } from "vitest";
import { originAllowed } from "../../../service/src/mcp/origin.js";
import { SessionRegistry, type McpSession } from "../../../service/src/mcp/session-registry.js";
import { textWindow } from "../../../service/src/mcp/text-window.js";
import { agentToolNames, sanitizeToolName } from "../../../service/src/mcp/tool-names.js";

describe("tool names", () => {
  it("keeps only the characters model APIs accept, within 64", () => {
    expect(sanitizeToolName("ask_chat:latest")).toBe("ask_chat_latest");
    expect(sanitizeToolName("ask_" + "x".repeat(100))).toHaveLength(64);
  });

  it("gives colliding agent ids distinct names and avoids reserved ones", () => {
    const names = agentToolNames(["a.b", "a_b", "a:b"], ["ask_a_b"]);
    expect([...names.values()]).toEqual(["ask_a_b_2", "ask_a_b_3", "ask_a_b_4"]);
  });
});

describe("Origin rules", () => {
  const pub = "https://api.example.com";
  it.each([
    [undefined, true],
    ["http://localhost:6274", true],
    ["http://127.0.0.1:3000", true],
    ["http://[::1]:8080", true],
    ["https://api.example.com", true],
    ["http://host.internal:8080", true], // same origin as the Host header below
    ["https://evil.example", false],
    ["null", false],
    ["file://", false],
  ])("origin %s → %s", (origin, allowed) => {
    expect(originAllowed(origin, "host.internal:8080", pub)).toBe(allowed);
  });
});

describe("text windows", () => {
  const bytes = Buffer.from("a€b", "utf8"); // 61 e2 82 ac 62
  it("leaves a character cut at the end for the next window", () => {
    expect(textWindow(bytes.subarray(0, 2), 0, bytes.length)).toEqual({ ok: true, text: "a", start: 0, end: 1 });
  });
  it("skips continuation bytes at the start (they belong to the previous window)", () => {
    expect(textWindow(bytes.subarray(2, 5), 2, bytes.length)).toEqual({ ok: true, text: "b", start: 4, end: 5 });
  });
  it("refuses binary and non-UTF-8 content", () => {
    expect(textWindow(Buffer.from([0x61, 0, 0x62]), 0, 3).ok).toBe(false);
    expect(textWindow(Buffer.from([0xff, 0xfe, 0x61]), 0, 3).ok).toBe(false);
  });
});

describe("session registry", () => {
  let now = 0;
  const closed: string[] = [];
  const session = (id: string, keyId: string) =>
    ({
      id,
      keyId,
      projectId: "p",
      kind: "sse",
      transport: undefined,
      close: async () => void closed.push(id),
    }) as unknown as McpSession;

  it("holds slots per key, including reservations not yet committed", () => {
    const reg = new SessionRegistry({ idleMs: 1000, maxPerKey: 2, now: () => now });
    const r1 = reg.reserve("k")!;
    const r2 = reg.reserve("k")!;
    expect(reg.reserve("k")).toBeUndefined();
    expect(reg.reserve("other")).toBeDefined();
    r1.commit(session("s1", "k"));
    r2.release();
    expect(reg.countForKey("k")).toBe(1);
    expect(reg.reserve("k")).toBeDefined();
  });

  it("closes idle sessions but never one with work under way", async () => {
    const reg = new SessionRegistry({ idleMs: 1000, maxPerKey: 5, now: () => now });
    now = 0;
    reg.reserve("k")!.commit(session("idle", "k"));
    reg.reserve("k")!.commit(session("busy", "k"));
    const done = reg.begin("busy");
    now = 5000;
    await reg.sweep();
    expect(reg.get("idle")).toBeUndefined();
    expect(reg.get("busy")).toBeDefined();
    done();
    await reg.sweep(now + 999);
    expect(reg.get("busy")).toBeDefined();
    await reg.sweep(now + 1000);
    expect(reg.get("busy")).toBeUndefined();
    expect(closed).toEqual(expect.arrayContaining(["idle", "busy"]));
  });

  it("closes every session of a revoked key and nothing else", async () => {
    const reg = new SessionRegistry({ idleMs: 1000, maxPerKey: 5, now: () => now });
    reg.reserve("a")!.commit(session("a1", "a"));
    reg.reserve("a")!.commit(session("a2", "a"));
    reg.reserve("b")!.commit(session("b1", "b"));
    await reg.closeKey("a");
    expect(reg.size).toBe(1);
    expect(reg.get("b1")).toBeDefined();
  });

  it("drains on shutdown: idle sessions close at once, busy ones when their work ends or at the deadline", async () => {
    const reg = new SessionRegistry({ idleMs: 1000, maxPerKey: 5, now: () => now });
    reg.reserve("k")!.commit(session("quiet", "k"));
    reg.reserve("k")!.commit(session("working", "k"));
    reg.reserve("k")!.commit(session("stuck", "k"));
    const finish = reg.begin("working");
    reg.begin("stuck");
    const deadline = new AbortController();
    const drained = reg.drain(deadline.signal);
    await Promise.resolve();
    expect(reg.get("quiet")).toBeUndefined();
    expect(reg.size).toBe(2);
    finish();
    await new Promise((r) => setImmediate(r));
    expect(reg.get("working")).toBeUndefined();
    expect(reg.get("stuck")).toBeDefined();
    deadline.abort();
    await drained;
    expect(reg.size).toBe(0);
  });
});
