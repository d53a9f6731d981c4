import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress } from "../../loadtest/harness/progress.js";

const sink = (isTTY: boolean) => {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 80 });
  const written: string[] = [];
  stream.on("data", (d: Buffer) => written.push(d.toString()));
  return { stream, written };
};

describe("load-test progress", () => {
  it("writes plain lines when not a terminal: one per phase change, not one per update", async () => {
    const { stream, written } = sink(false);
    const p = createProgress(stream, 60_000);
    for (let i = 1; i <= 50; i++) p.update(`[streaming] ${i}/50 streams`);
    p.update("[files] 1/24 files");
    p.update("[files] 2/24 files");
    p.done();
    await new Promise((r) => setImmediate(r));
    const lines = written.join("").split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d+\.\ds \[streaming\] 1\/50 streams$/);
    expect(lines[1]).toMatch(/^\d+\.\ds \[files\] 1\/24 files$/);
    expect(written.join("")).not.toContain("\r");
  });

  it("redraws one line in place on a terminal", async () => {
    const { stream, written } = sink(true);
    const p = createProgress(stream);
    p.update("[streaming] 1/50 streams");
    p.done();
    await new Promise((r) => setImmediate(r));
    // eslint-disable-next-line no-control-regex -- the terminal's escape sequence is what is tested
    expect(written.join("")).toMatch(/^\r\x1b\[2K\d+\.\ds \[streaming\] 1\/50 streams\r\x1b\[2K$/);
  });
});
