/** The sweep's knee (Kneedle) and its highest rate that met every SLO, on hand-made curves. */
import { describe, expect, it } from "vitest";
import { findKnee, GROWTH, maxSloRate, type CurvePoint } from "../../../../loadtest/harness/knee.js";

const curve = (rates: number[], latency: (r: number) => number | null, slo = 1e9): CurvePoint[] =>
  rates.map((rate) => {
    const latencyMs = latency(rate);
    return { rate, latencyMs, sloMet: latencyMs !== null && latencyMs <= slo };
  });
const rates = [10, 20, 30, 40, 50, 60, 70, 80];

describe("findKnee", () => {
  it("finds the last rate before latency turns upward (capacity 50 req/s)", () => {
    expect(findKnee(curve(rates, (r) => (r <= 50 ? 40 + r / 10 : 40 + (r - 50) * 20)))).toBe(50);
  });

  it("sorts the points by rate first", () => {
    const points = curve([...rates].reverse(), (r) => (r <= 30 ? 40 : 40 + (r - 30) * 30));
    expect(findKnee(points)).toBe(30);
    expect(findKnee([points[3], points[0], points[6], points[1], points[7], points[2], points[5], points[4]])).toBe(30);
  });

  it("needs three measured points: exactly three are enough, two are not, unmeasured ones do not count", () => {
    expect(findKnee(curve([10, 20, 30], (r) => (r < 30 ? 40 : 100)))).toBe(20);
    expect(findKnee(curve([10, 20], (r) => r * 100))).toBeNull();
    expect(findKnee(curve([10, 20, 30], (r) => (r === 20 ? null : r * 100)))).toBeNull();
    expect(findKnee(curve(rates, () => null))).toBeNull();
  });

  it("an unmeasured point is left out, not read as a zero latency", () => {
    // Measured: 40, 40, 50, 100 at 10..40: knee at 30. A zero at 50 would make the curve flat-topped differently.
    const latency = (r: number) => ({ 10: 40, 20: 40, 30: 50, 40: 100 })[r] ?? null;
    expect(findKnee(curve([10, 20, 30, 40, 50], latency))).toBe(30);
  });

  it("a curve that grew less than GROWTH is flat: no knee; exactly GROWTH is not flat", () => {
    expect(GROWTH).toBe(1.5);
    expect(findKnee(curve(rates, (r) => 40 + r / 10))).toBeNull();
    expect(findKnee(curve([10, 20, 30], (r) => (r < 30 ? 40 : 60)))).toBe(20);
    expect(findKnee(curve([10, 20, 30], (r) => (r < 30 ? 40 : 59.9)))).toBeNull();
  });

  it("a straight or concave rise has no knee: nothing lies below the diagonal", () => {
    expect(findKnee(curve([10, 20, 30], (r) => 20 + r * 2))).toBeNull();
    expect(findKnee(curve([10, 20, 30], (r) => ({ 10: 40, 20: 90, 30: 100 })[r]!))).toBeNull();
  });

  it("of points equally far below the diagonal, the first (lowest rate) is the knee", () => {
    // x − y is 0.25 at 20, 30 and 40.
    expect(findKnee(curve([10, 20, 30, 40, 50], (r) => ({ 10: 40, 20: 40, 30: 50, 40: 60, 50: 80 })[r]!))).toBe(20);
  });

  it("rates are scaled by their span: a point below the diagonal only on the true scale is the knee", () => {
    // At 20 req/s: x = 0.5, y = 0.3; over rates scaled by their sum instead, x would be 0.25.
    expect(findKnee(curve([10, 20, 30], (r) => ({ 10: 40, 20: 52, 30: 80 })[r]!))).toBe(20);
  });

  it("the farthest point wins: each is compared with the farthest so far, not with a sum", () => {
    // x − y: 0, 0.15, 0.3, 0.15, 0 (y = 0, 0.1, 0.2, 0.6, 1).
    expect(findKnee(curve([10, 20, 30, 40, 50], (r) => ({ 10: 40, 20: 50, 30: 60, 40: 100, 50: 140 })[r]!))).toBe(30);
  });

  it("every point at one rate: no knee", () => {
    expect(findKnee([10, 40, 90].map((latencyMs) => ({ rate: 10, latencyMs, sloMet: true })))).toBeNull();
  });
});

describe("maxSloRate", () => {
  it("is the highest rate whose point met every SLO, in any order", () => {
    const points = curve(rates, (r) => (r <= 50 ? 40 : 400), 100);
    expect(maxSloRate(points)).toBe(50);
    expect(maxSloRate([...points].reverse())).toBe(50);
  });

  it("is null when no point met them", () => {
    expect(maxSloRate(curve(rates, () => 400, 100))).toBeNull();
    expect(maxSloRate([])).toBeNull();
  });
});
