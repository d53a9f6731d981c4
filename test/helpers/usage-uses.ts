/** Deterministic usage over three days for the roll-up tests: several uses in the same minutes, hours and days. */
import type { UsageRecord } from "../../service/src/domain/usage/usage-meter.js";

export const DAY0 = Date.UTC(2026, 2, 1) / 1000;
export const KEYS = ["key_a", "key_b"];
export const MODELS = ["m1", "m2"];

/** 400 uses from a Lehmer generator seeded with `seed`; with `costs`, odd micro-dollar costs too. */
export function deterministicUses(seed: number, costs = false): Array<{ at: number; record: UsageRecord }> {
  const next = () => (seed = (seed * 48271) % 2147483647);
  return Array.from({ length: 400 }, () => ({
    at: DAY0 + (next() % (3 * 86_400)),
    record: {
      projectId: next() % 5 === 0 ? "other" : "p",
      keyId: KEYS[next() % 2],
      model: MODELS[next() % 2],
      inputTokens: next() % 100,
      outputTokens: next() % 50,
      ...(costs ? { inputCost: next() % 1_000_003, outputCost: next() % 7 === 0 ? 0 : next() % 2_000_017 } : {}),
    },
  }));
}
