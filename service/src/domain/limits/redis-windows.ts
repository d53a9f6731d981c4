/**
 * The per-key windows in Redis, shared by every replica: one EVALSHA reserves the request unit and
 * the token estimate together, and may grant the replica credit for more (leased-windows.ts spends
 * it without a round trip); one per batch settles. No library fits: @fastify/rate-limit counts
 * requests only and rate-limiter-flexible one quantity per key, and neither checks and reserves
 * two limits in one atomic step with a refund afterwards (two of them cost two round trips and
 * could each admit what the other refuses), nor leases.
 *
 * A window is one hash per key (`r` requests, `t` tokens, `w` its id) that expires a minute after
 * its first request. A settlement or a returned credit names the window it was reserved in: it
 * never lands in the next window.
 */
import type { Redis } from "ioredis";
import { randomBytes } from "node:crypto";
import {
  ALERT_100,
  ALERT_80,
  WINDOW_MS,
  type CreditWindows,
  type Credit,
  type Decision,
  type Grant,
  type KeyLimits,
  type SpendAsk,
} from "./windows.js";

/** A replica's credit is at most this fraction of what a window has left: the rest stays for the others. */
export const CREDIT_SHARE = 8;

/**
 * KEYS[1] the key's window; ARGV rpm, tpm (0: unlimited), tokens, window ms, a fresh window id,
 * the most requests of credit to grant (0: none), and credit given back (window id, requests,
 * tokens): a replica's unused credit goes back before the check, so it never refuses anyone.
 * A grant is at most 1/CREDIT_SHARE of what the window has left after this request, so near a
 * limit it is 0 and every request is counted here one by one.
 */
const RESERVE = `
local ttl = redis.call('PTTL', KEYS[1])
local r, t, w = 0, 0, ARGV[5]
local fresh = ttl <= 0
if not fresh then
  local v = redis.call('HMGET', KEYS[1], 'r', 't', 'w')
  r, t, w = tonumber(v[1]) or 0, tonumber(v[2]) or 0, v[3] or ARGV[5]
  if w == ARGV[7] then
    r = math.max(0, r - tonumber(ARGV[8]))
    t = math.max(0, t - tonumber(ARGV[9]))
  end
else
  ttl = tonumber(ARGV[4])
end
local rpm, tpm, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if (rpm > 0 and r >= rpm) or (tpm > 0 and t >= tpm) then
  if not fresh and w == ARGV[7] then redis.call('HSET', KEYS[1], 'r', r, 't', t) end
  return {0, r, t, ttl, w, 0, 0}
end
r = r + 1
t = t + tokens
local block, cr, ct = tonumber(ARGV[6]), 0, 0
if block > 0 then
  cr = block
  if rpm > 0 then cr = math.max(0, math.min(cr, math.floor((rpm - r) / ${CREDIT_SHARE}))) end
  if tpm > 0 then ct = math.max(0, math.min(cr * tokens, math.floor((tpm - t) / ${CREDIT_SHARE}))) end
  if rpm == 0 then cr = 0 end
end
redis.call('HSET', KEYS[1], 'r', r + cr, 't', t + ct, 'w', w)
if fresh then redis.call('PEXPIRE', KEYS[1], ttl) end
return {1, r, t, ttl, w, cr, ct}
`;

/**
 * The same reservation with a run's cost against its budgets (keys and projects with a budget).
 * KEYS[1] the key's rate window, KEYS[2..] the budgets' windows (a hash: `w` the window's start, `c`
 * the spend in micro-dollars, `a80`/`a100` the alerts raised). ARGV rpm, tpm, tokens, window ms, a
 * fresh window id, the cost, then per budget: its limit, its window's start, its TTL in ms (0: none),
 * and the spend the store recorded in it (-1: not looked up). A budget window Redis does not hold
 * (new period, or Redis lost it) is answered "unseeded" (status -1), nothing counted: the caller
 * asks again with the store's figure. Then the rate limits and the budgets are checked before
 * anything is counted, and the cost is added to every budget; each alert is raised once a window.
 * Reply: status (1 admitted, 0 rate limit, 2 budget), r, t, ttl, w, the refusing budget, spends,
 * alerts raised, unseeded budgets.
 */
const RESERVE_SPEND = `
local nb = #KEYS - 1
local spent, unseeded = {}, {}
for i = 1, nb do
  local k, o = KEYS[i + 1], 6 + (i - 1) * 4
  local v = redis.call('HMGET', k, 'w', 'c')
  if v[1] == ARGV[o + 2] then
    spent[i] = tonumber(v[2]) or 0
  elseif tonumber(ARGV[o + 4]) >= 0 then
    spent[i] = tonumber(ARGV[o + 4])
    redis.call('DEL', k)
    redis.call('HSET', k, 'w', ARGV[o + 2], 'c', spent[i])
    if tonumber(ARGV[o + 3]) > 0 then redis.call('PEXPIRE', k, ARGV[o + 3]) end
  else
    unseeded[#unseeded + 1] = i - 1
  end
end
if #unseeded > 0 then return {-1, 0, 0, 0, '', -1, {}, {}, unseeded} end
local function raise(i)
  local k, limit, bits = KEYS[i + 1], tonumber(ARGV[6 + (i - 1) * 4 + 1]), 0
  if spent[i] * 5 >= limit * 4 and redis.call('HSETNX', k, 'a80', 1) == 1 then bits = bits + ${ALERT_80} end
  if spent[i] >= limit and redis.call('HSETNX', k, 'a100', 1) == 1 then bits = bits + ${ALERT_100} end
  return bits
end
local ttl = redis.call('PTTL', KEYS[1])
local r, t, w = 0, 0, ARGV[5]
local fresh = ttl <= 0
if not fresh then
  local v = redis.call('HMGET', KEYS[1], 'r', 't', 'w')
  r, t, w = tonumber(v[1]) or 0, tonumber(v[2]) or 0, v[3] or ARGV[5]
else
  ttl = tonumber(ARGV[4])
end
local rpm, tpm, tokens, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6])
if (rpm > 0 and r >= rpm) or (tpm > 0 and t >= tpm) then return {0, r, t, ttl, w, -1, spent, {}, {}} end
for i = 1, nb do
  if spent[i] >= tonumber(ARGV[6 + (i - 1) * 4 + 1]) then
    local crossed = {}
    for j = 1, nb do crossed[j] = raise(j) end
    return {2, r, t, ttl, w, i - 1, spent, crossed, {}}
  end
end
r = r + 1
t = t + tokens
redis.call('HSET', KEYS[1], 'r', r, 't', t, 'w', w)
if fresh then redis.call('PEXPIRE', KEYS[1], ttl) end
local crossed = {}
for i = 1, nb do
  spent[i] = redis.call('HINCRBY', KEYS[i + 1], 'c', cost)
  crossed[i] = raise(i)
end
return {1, r, t, ttl, w, -1, spent, crossed, {}}
`;

/**
 * KEYS the keys' and budgets' windows; ARGV a window id, a request delta, a token delta and a cost
 * delta for each. Never below 0.
 */
const SETTLE = `
for i, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'w') == ARGV[4 * i - 3] then
    if tonumber(ARGV[4 * i - 2]) ~= 0 and redis.call('HINCRBY', key, 'r', ARGV[4 * i - 2]) < 0 then redis.call('HSET', key, 'r', 0) end
    if tonumber(ARGV[4 * i - 1]) ~= 0 and redis.call('HINCRBY', key, 't', ARGV[4 * i - 1]) < 0 then redis.call('HSET', key, 't', 0) end
    if tonumber(ARGV[4 * i]) ~= 0 and redis.call('HINCRBY', key, 'c', ARGV[4 * i]) < 0 then redis.call('HSET', key, 'c', 0) end
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

type Reply = [number, number, number, number, string, number, number];
type SpendReply = [number, number, number, number, string, number, number[], number[], number[]];

interface LimitCommands {
  agentportReserve(
    key: string,
    rpm: number,
    tpm: number,
    tokens: number,
    windowMs: number,
    id: string,
    block: number,
    returnedWindow: string,
    returnedRequests: number,
    returnedTokens: number,
  ): Promise<Reply>;
  agentportReserveSpend(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<SpendReply>;
  agentportSettle2(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>;
}

export class RedisWindows implements CreditWindows {
  private readonly redis: Redis & LimitCommands;
  private serial = 0;
  private readonly prefix = randomBytes(6).toString("base64url");

  constructor(redis: Redis) {
    // defineCommand sends EVALSHA, and the script itself only when Redis does not know it yet.
    redis.defineCommand("agentportReserve", { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand("agentportReserveSpend", { lua: RESERVE_SPEND });
    // A new name for the new settlement (a cost per entry): a replica of the previous release keeps its own.
    redis.defineCommand("agentportSettle2", { lua: SETTLE });
    this.redis = redis as Redis & LimitCommands;
  }

  async reserve(key: string, limits: KeyLimits, tokens: number, block = 0, returned?: Credit): Promise<Grant> {
    // A window id unique across replicas: this process's random prefix and a counter.
    const id = this.prefix + (++this.serial).toString(36);
    const [allowed, requests, used, resetMs, window, creditRequests, creditTokens] = await this.redis.agentportReserve(
      redisKey(key),
      limits.rpm,
      limits.tpm,
      tokens,
      WINDOW_MS,
      id,
      block,
      returned?.window ?? "",
      returned?.requests ?? 0,
      returned?.tokens ?? 0,
    );
    return {
      allowed: allowed === 1,
      requests,
      tokens: used,
      resetMs,
      window,
      credit: { requests: creditRequests, tokens: creditTokens },
    };
  }

  async reserveSpend(key: string, limits: KeyLimits, tokens: number, ask: SpendAsk): Promise<Decision> {
    const id = this.prefix + (++this.serial).toString(36);
    const now = Date.now();
    const [status, requests, used, resetMs, window, refused, spent, crossed, unseeded] =
      await this.redis.agentportReserveSpend(
        1 + ask.budgets.length,
        redisKey(key),
        ...ask.budgets.map((b) => budgetKey(b.id)),
        limits.rpm,
        limits.tpm,
        tokens,
        WINDOW_MS,
        id,
        ask.cost,
        ...ask.budgets.flatMap((b) => [
          b.limit,
          String(b.start),
          b.end === null ? 0 : Math.max(1, b.end - now),
          b.seed ?? -1,
        ]),
      );
    return {
      allowed: status === 1,
      requests,
      tokens: used,
      resetMs,
      window,
      spend: { ...(refused >= 0 && { refused }), unseeded, spent, crossed },
    };
  }

  settleSpend(budget: string, start: number, cost: number): Promise<void> {
    return this.queue(budgetKey(budget), String(start), 0, 0, cost);
  }

  private pending = new Map<
    string,
    { redisKey: string; window: string; delta: number; requests: number; cost: number }
  >();
  private batch?: { timer: NodeJS.Timeout; written: Promise<void>; write: () => void };

  /** Adds to the next batch (deltas to one window are summed); resolves once the batch is written. */
  settle(key: string, window: string, delta: number, requests = 0): Promise<void> {
    return this.queue(redisKey(key), window, delta, requests, 0);
  }

  private queue(key: string, window: string, delta: number, requests: number, cost: number): Promise<void> {
    const id = key + "\n" + window;
    const known = this.pending.get(id);
    if (known) {
      known.delta += delta;
      known.requests += requests;
      known.cost += cost;
    } else this.pending.set(id, { redisKey: key, window, delta, requests, cost });
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
    const keys = batch.map((s) => s.redisKey);
    const args = batch.flatMap((s) => [s.window, s.requests, s.delta, s.cost]);
    await this.redis.agentportSettle2(keys.length, ...keys, ...args);
  }
}

const redisKey = (key: string) => "agentport-limits:" + key;
const budgetKey = (budget: string) => "agentport-budget:" + budget;
