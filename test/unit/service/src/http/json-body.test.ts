/** The JSON depth check: refused past the limit, strings skipped, escapes honoured. */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { jsonDepthExceeds, MAX_DEPTH, useDepthCheckedJson } from "../../../../../service/src/http/json-body.js";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("jsonDepthExceeds", () => {
  it("admits a body exactly at the depth limit and refuses one level more", () => {
    expect(jsonDepthExceeds(nested(3), 3)).toBe(false);
    expect(jsonDepthExceeds(nested(4), 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":{"c":[1]}}}', 3)).toBe(true);
  });

  it("counts depth, not brackets: closed siblings do not add up", () => {
    expect(jsonDepthExceeds("[[],[],[],[],[]]", 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":{},"b":{},"c":{"d":{}}}', 3)).toBe(false);
  });

  it("closing brackets end a level, whichever kind", () => {
    expect(jsonDepthExceeds("[{}][{}][{}]", 2)).toBe(false);
    expect(jsonDepthExceeds("{[]}{[]}{[]}", 2)).toBe(false);
  });

  it("skips brackets inside strings", () => {
    expect(jsonDepthExceeds(`["${"[{".repeat(100)}"]`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"${"]}".repeat(100)}":[[]]}`, 2)).toBe(true);
  });

  it("an escaped quote does not end a string", () => {
    expect(jsonDepthExceeds(String.raw`["\"[[[["]`, 1)).toBe(false);
    // An escaped backslash does: the bracket after it is real.
    expect(jsonDepthExceeds(String.raw`["\\",[]]`, 1)).toBe(true);
  });

  it("a backslash escapes only the character right after it", () => {
    expect(jsonDepthExceeds(String.raw`["\n[[[["]`, 1)).toBe(false);
  });

  it("stops at the end of the text, inside an unterminated string too", () => {
    expect(jsonDepthExceeds('["abc', 1)).toBe(false);
    expect(jsonDepthExceeds('["ab\\', 1)).toBe(false);
    expect(jsonDepthExceeds("", 0)).toBe(false);
    expect(jsonDepthExceeds("[", 0)).toBe(true);
  });

  it("refuses a deep body that never closes", () => {
    expect(jsonDepthExceeds("[".repeat(MAX_DEPTH + 1), MAX_DEPTH)).toBe(true);
    expect(jsonDepthExceeds("[".repeat(MAX_DEPTH), MAX_DEPTH)).toBe(false);
  });
});

describe("useDepthCheckedJson", () => {
  async function echoApp() {
    const app = Fastify();
    useDepthCheckedJson(app);
    app.post("/", async (request) => ({ got: request.body }));
    await app.ready();
    return app;
  }

  it("parses a body at the depth limit", async () => {
    const app = await echoApp();
    const body = nested(MAX_DEPTH);
    const res = await app.inject({ method: "POST", url: "/", headers: { "content-type": "application/json" }, body });
    expect(res.statusCode).toBe(200);
    expect(JSON.stringify(res.json().got)).toBe(body);
    await app.close();
  });

  it("refuses a deeper body with a 400 that names the limit", async () => {
    const app = await echoApp();
    const res = await app.inject({
      method: "POST",
      url: "/",
      headers: { "content-type": "application/json" },
      body: nested(MAX_DEPTH + 1),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`nesting deeper than ${MAX_DEPTH} levels`);
    await app.close();
  });

  it("an empty JSON body is no body on a route that takes none, and refused on one whose schema wants one", async () => {
    const app = Fastify();
    useDepthCheckedJson(app);
    app.post("/", async (request) => ({ none: request.body === undefined }));
    app.post("/typed", { schema: { body: { type: "object" } } }, async () => ({ ok: true }));
    await app.ready();
    const empty = { method: "POST" as const, headers: { "content-type": "application/json" }, body: "" };
    const bare = await app.inject({ ...empty, url: "/" });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toEqual({ none: true });
    const typed = await app.inject({ ...empty, url: "/typed" });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().code).toBe("FST_ERR_CTP_EMPTY_JSON_BODY");
    await app.close();
  });

  it("still refuses prototype poisoning (Fastify's own parser after the check)", async () => {
    const app = await echoApp();
    const res = await app.inject({
      method: "POST",
      url: "/",
      headers: { "content-type": "application/json" },
      body: '{"__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    await app.close();
  });
});
