/** Money as integers: prices exact to the micro-dollar, token costs rounded up, a run's cost by line. */
import { describe, expect, it } from "vitest";
import {
  MAX_PRICE_USD,
  MICROS_PER_USD,
  microsOf,
  priceMicros,
  runCost,
  tokensCost,
  usd,
} from "../../../../../../service/src/domain/spend/cost.js";

describe("priceMicros", () => {
  it("takes prices exact to the micro-dollar, from 0 to MAX_PRICE_USD inclusive", () => {
    expect([MICROS_PER_USD, MAX_PRICE_USD]).toEqual([1_000_000, 100_000]);
    expect(priceMicros(2.5)).toBe(2_500_000);
    expect(priceMicros(0.15)).toBe(150_000);
    expect(priceMicros(0.000001)).toBe(1);
    expect(priceMicros(0)).toBe(0);
    expect(priceMicros(MAX_PRICE_USD)).toBe(100_000_000_000);
  });

  it("refuses negative, too large, not finite, and finer than a micro-dollar", () => {
    for (const bad of [-1, -0.000001, 100_000.000001, Number.NaN, Infinity, -Infinity, 0.0000001, 0.0000015])
      expect(priceMicros(bad), String(bad)).toBeUndefined();
  });

  it("a large price's floating-point error is tolerated in proportion to it", () => {
    // 65804.573306 × 10^6 is 65804573306.00000763 in floating point: exact all the same.
    expect(priceMicros(65_804.573306)).toBe(65_804_573_306);
  });
});

describe("tokensCost", () => {
  it("is tokens × price ÷ 10^6, rounded up to the micro-dollar", () => {
    expect(tokensCost(1_000_000, 2_500_000)).toBe(2_500_000);
    expect(tokensCost(1, 2_500_000)).toBe(3);
    expect(tokensCost(2, 2_500_000)).toBe(5);
    expect(tokensCost(4, 2_500_000)).toBe(10);
    expect(tokensCost(1, 1)).toBe(1);
    expect(tokensCost(999_999, 1)).toBe(1);
    expect(tokensCost(1_000_001, 1)).toBe(2);
  });

  it("no tokens, no price, or a negative count costs 0; a fractional count is floored", () => {
    expect(tokensCost(0, 2_500_000)).toBe(0);
    expect(tokensCost(7, 0)).toBe(0);
    expect(tokensCost(-5, 1_000_000)).toBe(0);
    expect(tokensCost(5, -1_000_000)).toBe(0);
    expect(tokensCost(1.9, 1_000_000)).toBe(1);
  });

  it("is exact past 2^53 as a product", () => {
    expect(tokensCost(2 ** 31, 100_000_000_000)).toBe(214_748_364_800_000);
  });
});

describe("runCost", () => {
  const price = { input: 2_500_000, output: 10_000_000, cachedInput: 1_250_000 };

  it("input at the input price, output at the output price", () => {
    expect(runCost(price, { prompt: 1000, completion: 100 })).toEqual({ input: 2_500, output: 1_000 });
    expect(runCost(price, { prompt: 0, completion: 3 })).toEqual({ input: 0, output: 30 });
  });

  it("cached prompt tokens at the cached price, or the input price when there is none", () => {
    expect(runCost(price, { prompt: 1000, cached: 400, completion: 0 })).toEqual({ input: 1_500 + 500, output: 0 });
    expect(runCost({ input: 1_000_000, output: 1 }, { prompt: 3, cached: 2, completion: 0 })).toEqual({
      input: 3,
      output: 0,
    });
  });

  it("cached tokens are believed only between 0 and the prompt's", () => {
    expect(runCost(price, { prompt: 10, cached: 1e9, completion: 0 })).toEqual({ input: 13, output: 0 });
    expect(runCost(price, { prompt: 10, cached: -5, completion: 0 })).toEqual({ input: 25, output: 0 });
  });

  it("no price costs 0", () => {
    expect(runCost(undefined, { prompt: 1e6, completion: 1e6 })).toEqual({ input: 0, output: 0 });
  });
});

describe("usd and microsOf", () => {
  it("convert between micro-dollars and USD, rounding USD to the nearest micro-dollar", () => {
    expect(usd(1_234_567)).toBe(1.234567);
    expect(microsOf(10)).toBe(10_000_000);
    expect(microsOf(1.1)).toBe(1_100_000);
    expect(microsOf(0.0000014)).toBe(1);
    expect(microsOf(0.0000016)).toBe(2);
  });
});
