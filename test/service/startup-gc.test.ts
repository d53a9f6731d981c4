import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { collectStartupGarbage } from "../../service/src/startup-gc.js";

const youngGeneration = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_size;

describe("the collection run once the server is up", () => {
  it("gives back the young generation a burst of allocation grew", () => {
    // Objects that survive a few scavenges make V8 grow the young generation, as starting does.
    let kept: object[] = [];
    for (let round = 0; round < 20; round++) {
      kept = kept.concat(Array.from({ length: 50_000 }, (_, i) => ({ round, i })));
      if (kept.length > 200_000) kept = kept.slice(100_000);
    }
    const grown = youngGeneration();
    // Dropped so the collection below has garbage to take.
    // eslint-disable-next-line no-useless-assignment
    kept = [];
    collectStartupGarbage();
    expect(youngGeneration()).toBeLessThan(grown);
  });

  it("leaves no gc function on the global object and can run again", () => {
    const before = typeof globalThis.gc;
    collectStartupGarbage();
    collectStartupGarbage();
    expect(typeof globalThis.gc).toBe(before);
  });
});
