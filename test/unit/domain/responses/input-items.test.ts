/** A Responses input item of an unknown type is refused with a message that shows what was sent. */
import { describe, expect, it } from "vitest";
import { inputItems } from "../../../../service/src/domain/responses/input-items.js";

describe("Responses input items", () => {
  it("names a non-string item type as the JSON the client sent, not [object Object]", () => {
    expect(() => inputItems([{ type: { kind: "message" } }])).toThrow(
      `Invalid input item type '{"kind":"message"}' in 'input[0]'`,
    );
  });

  it("names an unknown string type as sent", () => {
    expect(() => inputItems([{ type: "telepathy" }])).toThrow(`Invalid input item type 'telepathy' in 'input[0]'`);
  });
});
