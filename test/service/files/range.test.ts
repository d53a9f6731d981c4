import { describe, expect, it } from "vitest";
import { parseRange } from "../../../service/src/routes/v1/files/range.js";
import { contentDisposition } from "../../../service/src/routes/v1/files/content-disposition.js";
import { newFileId, fileIdTime } from "../../../service/src/domain/files/file-id.js";
import { passages } from "../../../service/src/domain/files/text-index.js";

describe("Range header", () => {
  it.each([
    [undefined, undefined],
    ["bytes=0-9", { start: 0, end: 9 }],
    ["bytes=90-", { start: 90, end: 99 }],
    ["bytes=-10", { start: 90, end: 99 }],
    ["bytes=-500", { start: 0, end: 99 }],
    ["bytes=50-5000", { start: 50, end: 99 }],
    ["bytes=100-", "unsatisfiable"],
    ["bytes=9-3", "unsatisfiable"],
    ["bytes=-0", "unsatisfiable"],
    ["bytes=0-1,5-6", undefined],
    ["items=0-1", undefined],
  ] as const)("%s on 100 bytes → %j", (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });
});

describe("file ids", () => {
  it("sort in creation order, also within one millisecond, and carry their time", () => {
    const ids = Array.from({ length: 1000 }, () => newFileId(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
    expect(fileIdTime(newFileId(1_800_000_000_000)).getTime()).toBe(1_800_000_000_000);
  });
});

describe("helpers", () => {
  it("Content-Disposition keeps an ASCII fallback and the exact UTF-8 name", () => {
    expect(contentDisposition('a "q".txt')).toBe(`attachment; filename="a _q_.txt"; filename*=UTF-8''a%20%22q%22.txt`);
  });
  it("passages cover the whole text in bounded pieces", () => {
    const text = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ") + "\n\nshort tail";
    const parts = passages(text, 200);
    expect(parts.every((p) => p.length <= 200)).toBe(true);
    expect(parts.join(" ").replace(/\s+/g, " ")).toBe(text.replace(/\s+/g, " "));
  });
});
