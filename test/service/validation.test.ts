/**
 * The request validators: a body is checked as sent (no coercion, unknown fields kept for the
 * schema to name), a query string or path param is coerced from its text form; defaults fill in.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { validatorCompiler } from "../../service/src/validation.js";

const schema = Type.Object({
  n: Type.Integer(),
  mode: Type.String({ default: "auto" }),
  at: Type.Optional(Type.String({ format: "date-time" })),
});

function validate(httpPart: string, data: Record<string, unknown>): { ok: boolean; data: Record<string, unknown> } {
  const check = validatorCompiler()({ schema, httpPart, method: "POST", url: "/x" });
  const ok = check(data) === true;
  return { ok, data };
}

describe("request validation", () => {
  it("a body's number sent as text is refused, not coerced", () => {
    expect(validate("body", { n: "5" }).ok).toBe(false);
  });

  it("a query string's number arrives as text and is coerced", () => {
    expect(validate("querystring", { n: "5" })).toEqual({ ok: true, data: { n: 5, mode: "auto" } });
  });

  it("a body keeps its unknown fields and gets its defaults", () => {
    expect(validate("body", { n: 5, extra: true })).toEqual({ ok: true, data: { n: 5, mode: "auto", extra: true } });
  });

  it("formats are checked", () => {
    expect(validate("body", { n: 5, at: "yesterday" }).ok).toBe(false);
    expect(validate("body", { n: 5, at: "2026-01-01T00:00:00Z" }).ok).toBe(true);
  });
});
