/**
 * Script calls Redis has served and the CPU time they took, from its own counters (`INFO
 * commandstats`): a count does not swing with the machine's load as a time does.
 */
import { Redis } from "ioredis";

export interface ScriptCalls {
  calls: number;
  /** Redis's own CPU time for them, in microseconds. */
  micros: number;
}

export async function scriptCalls(url: string): Promise<ScriptCalls> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info("commandstats");
    let calls = 0;
    let micros = 0;
    for (const m of info.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+),usec=(\d+)/gm)) {
      calls += Number(m[1]);
      micros += Number(m[2]);
    }
    return { calls, micros };
  } finally {
    redis.disconnect();
  }
}
