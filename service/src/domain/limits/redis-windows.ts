/**
 * The per-key windows in Redis, shared by every replica: one EVALSHA per request reserves the
 * request unit and the token estimate together, one per run settles it. No library fits:
 * @fastify/rate-limit counts requests only and rate-limiter-flexible one quantity per key, and
 * neither checks and reserves two limits in one atomic step with a refund afterwards (two of them
 * cost two round trips and could each admit what the other refuses).
 *
 * A window is one hash per key (`r` requests, `t` tokens, `w` its id) that expires a minute after
 * its first request. A settlement names the window it reserved in: a refund never lands in the
 * next window.
 */
import type { Redis } from "ioredis";
import { randomBytes } from "node:crypto";
import { WINDOW_MS, type Decision, type KeyLimits, type LimitWindows } from "./windows.js";

/** KEYS[1] the key's window; ARGV rpm, tpm (0: unlimited), tokens, window ms, a fresh window id. */
const RESERVE = `
local ttl = redis.call('PTTL', KEYS[1])
local r, t, w = 0, 0, ARGV[5]
local fresh = ttl <= 0
if not fresh then
  local v = redis.call('HMGET', KEYS[1], 'r', 't', 'w')
  r, t, w = tonumber(v[1]) or 0, tonumber(v[2]) or 0, v[3] or ARGV[5]
else
  ttl = tonumber(ARGV[4])
end
local rpm, tpm = tonumber(ARGV[1]), tonumber(ARGV[2])
if (rpm > 0 and r >= rpm) or (tpm > 0 and t >= tpm) then
  return {0, r, t, ttl, w}
end
r = r + 1
t = t + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'r', r, 't', t, 'w', w)
if fresh then redis.call('PEXPIRE', KEYS[1], ttl) end
return {1, r, t, ttl, w}
`;

/** KEYS the keys' windows; ARGV a window id and a token delta for each. Never below 0. */
const SETTLE = `
for i, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'w') == ARGV[2 * i - 1] then
    local t = redis.call('HINCRBY', key, 't', ARGV[2 * i])
    if t < 0 then redis.call('HSET', key, 't', 0) end
  end
end
return 1
`;

/**
 * Settlements are sent together, one script call per this many milliseconds, not one per run:
 * under load a round trip per run costs as much CPU as the reservation itself. A window sees a
 * refund at most this late.
 */
const SETTLE_BATCH_MS = 20;

type Reply = [number, number, number, number, string];

interface LimitCommands {
  agentportReserve(key: string, rpm: number, tpm: number, tokens: number, windowMs: number, id: string): Promise<Reply>;
  agentportSettle(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>;
}

export class RedisWindows implements LimitWindows {
  private readonly redis: Redis & LimitCommands;
  private serial = 0;
  private readonly prefix = randomBytes(6).toString("base64url");

  constructor(redis: Redis) {
    // defineCommand sends EVALSHA, and the script itself only when Redis does not know it yet.
    redis.defineCommand("agentportReserve", { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand("agentportSettle", { lua: SETTLE });
    this.redis = redis as Redis & LimitCommands;
  }

  async reserve(key: string, limits: KeyLimits, tokens: number): Promise<Decision> {
    // A window id unique across replicas: this process's random prefix and a counter.
    const id = this.prefix + (++this.serial).toString(36);
    const [allowed, requests, used, resetMs, window] = await this.redis.agentportReserve(redisKey(key), limits.rpm, limits.tpm, tokens, WINDOW_MS, id);
    return { allowed: allowed === 1, requests, tokens: used, resetMs, window };
  }

  private pending = new Map<string, { key: string; window: string; delta: number }>();
  private batch?: { timer: NodeJS.Timeout; written: Promise<void>; write: () => void };

  /** Adds to the next batch (deltas to one window are summed); resolves once the batch is written. */
  settle(key: string, window: string, delta: number): Promise<void> {
    const id = key + "\n" + window;
    const known = this.pending.get(id);
    if (known) known.delta += delta;
    else this.pending.set(id, { key, window, delta });
    this.batch ??= this.nextBatch();
    return this.batch.written;
  }

  /** Writes what is pending now (at shutdown, before the connection closes). */
  async close(): Promise<void> {
    if (!this.batch) return;
    clearTimeout(this.batch.timer);
    this.batch.write();
    await this.batch.written.catch(() => {});
  }

  private nextBatch() {
    let write!: () => void;
    const written = new Promise<void>((resolve) => (write = resolve)).then(() => this.flush());
    return { timer: setTimeout(write, SETTLE_BATCH_MS), written, write };
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.batch = undefined;
    const keys = batch.map((s) => redisKey(s.key));
    const args = batch.flatMap((s) => [s.window, s.delta]);
    await this.redis.agentportSettle(keys.length, ...keys, ...args);
  }
}

const redisKey = (key: string) => "agentport-limits:" + key;
