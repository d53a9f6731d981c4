/**
 * What usage accounting adds to a completion: one UsageMeter.record (a map update; the sums are
 * written in one statement every few seconds, off the request path), timed in this process in CPU
 * time, as the table's per-request figures are, over as many keys and models as a busy replica
 * sees in a minute.
 */
import { UsageMeter, type UsageRecord } from "../src/domain/usage/usage-meter.js";
import type { Db } from "../src/store/db.js";

const CALLS = 1_000_000;

/** CPU nanoseconds per recorded completion. */
export function usageRecordNanos(keys = 200, models = 5): number {
  // Never started, so it never writes: only the per-request part is timed.
  const meter = new UsageMeter({} as Db);
  const records: UsageRecord[] = Array.from({ length: keys * models }, (_, i) => ({
    projectId: "bench",
    keyId: `key-${i % keys}`,
    model: `model-${i % models}`,
    inputTokens: 8,
    outputTokens: 20,
  }));
  for (let i = 0; i < CALLS; i++) meter.record(records[i % records.length]);
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) meter.record(records[i % records.length]);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / CALLS;
}
