/**
 * The key store's checks, on a store stand-in that answers the key lookup and counts it: secrets
 * refused without a lookup, expiry on the test's clock, what is cached and when it may be trusted,
 * revocations racing a lookup. The SQL itself runs against PostgreSQL and PGlite in
 * test/service/api-keys.test.ts.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiKeys, KEY_PREFIX } from "../../../../../service/src/domain/api-keys.js";
import type { Db, Queryable } from "../../../../../service/src/store/db.js";

const T0 = Date.UTC(2026, 0, 1);

interface KeyRow {
  id: string;
  project_id: string;
  name: string;
  secret_hash?: Uint8Array;
  expires_at: Date | string | null;
  rate_limit_rpm: number | null;
  rate_limit_tpm: number | null;
  budget_micro_usd: string | null;
  budget_period: string | null;
  created_at: Date | string;
}

const secretOf = (n: number | string) => KEY_PREFIX + String(n).padStart(40, "s");
const hashOf = (secret: string) => createHash("sha256").update(secret).digest();

/** A store that knows keys by hash, counts lookups, and can hold them until released. */
class FakeStore {
  rows: KeyRow[] = [];
  lookups = 0;
  live = true;
  updates: unknown[][] = [];
  /** Set: lookups wait until it is called. */
  private held: Array<() => void> | undefined;
  onMessage?: (payload: string) => void;
  onReset?: () => void;
  unlistened = 0;

  add(secret: string, row: Partial<KeyRow> = {}): KeyRow {
    const full: KeyRow = {
      id: "key_" + this.rows.length,
      project_id: "proj",
      name: "k",
      secret_hash: hashOf(secret),
      expires_at: null,
      rate_limit_rpm: null,
      rate_limit_tpm: null,
      budget_micro_usd: null,
      budget_period: null,
      created_at: new Date(0),
      ...row,
    };
    this.rows.push(full);
    return full;
  }

  /** Lookups from now on wait, each until its own release (in the order they reach the store). */
  holdEach(): Array<() => void> {
    const releases: Array<() => void> = [];
    const held: Array<() => void> = [];
    this.held = held;
    const push = held.push.bind(held);
    held.push = (go) => push(go) + releases.push(go);
    return releases;
  }

  hold(): () => void {
    const held: Array<() => void> = [];
    this.held = held;
    return () => {
      this.held = undefined;
      for (const go of held) go();
    };
  }

  readonly db: Db = {
    kind: "postgres",
    query: async <T>(sql: string, params: unknown[] = []) => {
      if (sql.startsWith("SELECT id, project_id, name, secret_hash")) {
        this.lookups++;
        if (this.held) await new Promise<void>((go) => this.held!.push(go));
        const hash = params[0] as Buffer;
        const rows = this.rows.filter((r) => !r.secret_hash || Buffer.from(r.secret_hash).equals(hash));
        return { rows: rows as T[], rowCount: rows.length };
      }
      if (sql.startsWith("UPDATE api_keys")) {
        this.updates.push(params);
        return { rows: [], rowCount: 0 };
      }
      throw new Error("the stand-in does not answer: " + sql);
    },
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => fn(this.db),
    listen: async (_channel, onMessage, onReset) => {
      this.onMessage = onMessage;
      this.onReset = onReset;
      return async () => void this.unlistened++;
    },
    notificationsLive: () => this.live,
    notify: async () => {},
    close: async () => {},
  };
}

function setup() {
  let t = T0;
  const store = new FakeStore();
  const keys = new ApiKeys(store.db, () => t);
  return { store, keys, advance: (ms: number) => void (t += ms) };
}

describe("a secret that is not one of ours is refused without a lookup", () => {
  it.each([
    ["without the prefix", "sk-" + "s".repeat(40)],
    ["shorter than 40 characters", KEY_PREFIX + "s".repeat(36)],
    ["longer than 128 characters", KEY_PREFIX + "s".repeat(126)],
  ])("%s", async (_, secret) => {
    const { store, keys } = setup();
    expect(keys.verifyCached(secret)).toBeNull();
    expect(await keys.verify(secret)).toBeUndefined();
    expect(store.lookups).toBe(0);
  });

  it.each([
    ["40 characters", KEY_PREFIX + "s".repeat(37)],
    ["128 characters", KEY_PREFIX + "s".repeat(125)],
  ])("a well-formed secret of %s is looked up", async (_, secret) => {
    const { store, keys } = setup();
    expect(keys.verifyCached(secret)).toBeUndefined();
    await keys.verify(secret);
    expect(store.lookups).toBe(1);
  });
});

describe("verify", () => {
  it("answers the key's principal, with its own limits when it has them", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a", project_id: "p1", name: "ci", rate_limit_rpm: 10, rate_limit_tpm: 500 });
    store.add(secretOf(2), { id: "key_b", project_id: "p2", name: "bot" });
    expect(await keys.verify(secretOf(1))).toEqual({
      keyId: "key_a",
      projectId: "p1",
      keyName: "ci",
      rpm: 10,
      tpm: 500,
    });
    const plain = await keys.verify(secretOf(2));
    expect(plain).toEqual({ keyId: "key_b", projectId: "p2", keyName: "bot" });
    expect(plain).not.toHaveProperty("rpm");
    expect(plain).not.toHaveProperty("tpm");
    expect(plain).not.toHaveProperty("expiresAtMs");
    expect(Object.isFrozen(plain)).toBe(true);
  });

  it("a key with a budget carries it and its creation time (its budget's windows count from it)", async () => {
    const { store, keys } = setup();
    const created = new Date(T0 - 86_400_000);
    store.add(secretOf(3), { id: "key_c", budget_micro_usd: "5000000", budget_period: "7d", created_at: created });
    store.add(secretOf(4), { id: "key_d", budget_micro_usd: "5000000", budget_period: null });
    expect(await keys.verify(secretOf(3))).toEqual({
      keyId: "key_c",
      projectId: "proj",
      keyName: "k",
      budget: { limitMicros: 5_000_000, period: "7d" },
      createdAtMs: created.getTime(),
    });
    const half = await keys.verify(secretOf(4));
    expect(half).not.toHaveProperty("budget");
    expect(half).not.toHaveProperty("createdAtMs");
  });

  it("caches a verified key while notifications are live: the next check needs no lookup", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.verify(secretOf(1));
    expect(keys.verifyCached(secretOf(1))).toMatchObject({ keyId: "key_a" });
    expect(await keys.verify(secretOf(1))).toMatchObject({ keyId: "key_a" });
    expect(store.lookups).toBe(1);
  });

  it("without live notifications every check goes to the store, and nothing read then is cached", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1));
    await keys.verify(secretOf(1));
    store.live = false;
    expect(keys.verifyCached(secretOf(1))).toBeUndefined();
    await keys.verify(secretOf(1));
    await keys.verify(secretOf(1));
    expect(store.lookups).toBe(3);
    store.live = true;
    // Read while not live: not cached (the cache from before is trusted again).
    const fresh = setup();
    fresh.store.add(secretOf(2));
    fresh.store.live = false;
    await fresh.keys.verify(secretOf(2));
    fresh.store.live = true;
    expect(fresh.keys.verifyCached(secretOf(2))).toBeUndefined();
  });

  it("remembers a refused secret: a flood of one bad key makes one lookup", async () => {
    const { store, keys } = setup();
    expect(await keys.verify(secretOf("nope"))).toBeUndefined();
    expect(keys.verifyCached(secretOf("nope"))).toBeNull();
    expect(await keys.verify(secretOf("nope"))).toBeUndefined();
    expect(store.lookups).toBe(1);
  });

  it("refuses a row without a secret hash", async () => {
    const { store, keys } = setup();
    store.add(secretOf("other"), { secret_hash: undefined });
    expect(await keys.verify(secretOf(1))).toBeUndefined();
    expect(keys.verifyCached(secretOf(1))).toBeNull();
  });

  it("refuses a row whose secret hash differs from the presented one", async () => {
    const { store, keys } = setup();
    const row = store.add(secretOf("x"));
    // The stand-in answers every lookup with this row, as a store matching on a broken index might.
    store.rows = [];
    const query = store.db.query;
    (store.db as { query: Db["query"] }).query = async (sql, params) =>
      sql.startsWith("SELECT id, project_id") ? ({ rows: [row], rowCount: 1 } as never) : query(sql, params);
    expect(await keys.verify(secretOf(1))).toBeUndefined();
  });

  it("a burst of checks for a key not cached yet makes one lookup", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    const release = store.hold();
    const burst = [keys.verify(secretOf(1)), keys.verify(secretOf(1)), keys.verify(secretOf(1))];
    release();
    for (const p of await Promise.all(burst)) expect(p).toMatchObject({ keyId: "key_a" });
    expect(store.lookups).toBe(1);
  });

  it("a check does not join a lookup while notifications are not live", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1));
    store.live = false;
    const release = store.hold();
    const both = [keys.verify(secretOf(1)), keys.verify(secretOf(1))];
    release();
    await Promise.all(both);
    expect(store.lookups).toBe(2);
  });

  it("while notifications are not live, the checks arriving during a lookup share one that starts after it ends", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    store.live = false;
    const releases = store.holdEach();
    const first = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    const burst = Array.from({ length: 50 }, () => keys.verify(secretOf(1)));
    await new Promise((r) => setImmediate(r));
    expect(store.lookups).toBe(1); // none of the burst is answered by the read under way
    releases[0]();
    expect(await first).toMatchObject({ keyId: "key_a" });
    await vi.waitFor(() => expect(releases).toHaveLength(2)); // the shared one, begun after the first ended
    releases[1]();
    for (const p of await Promise.all(burst)) expect(p).toMatchObject({ keyId: "key_a" });
    expect(store.lookups).toBe(2);
  });

  it("a key revoked while checks wait on a lookup is refused by the lookup they share", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    store.live = false;
    const releases = store.holdEach();
    const first = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    const waiting = keys.verify(secretOf(1));
    releases[0]();
    expect(await first).toMatchObject({ keyId: "key_a" });
    store.rows = []; // revoked after the first read, before the shared one
    await vi.waitFor(() => expect(releases).toHaveLength(2));
    releases[1]();
    expect(await waiting).toBeUndefined();
  });

  it("a check after a revocation does not join a lookup that began before it", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.start();
    const release = store.hold();
    const before = keys.verify(secretOf(1));
    store.onMessage!("key_other");
    const after = keys.verify(secretOf(1));
    release();
    await Promise.all([before, after]);
    expect(store.lookups).toBe(2);
    await keys.stop();
  });

  it("a lookup that raced a revocation answers but is not cached", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.start();
    const release = store.hold();
    const racing = keys.verify(secretOf(1));
    store.onMessage!("key_a");
    release();
    expect(await racing).toMatchObject({ keyId: "key_a" });
    expect(keys.verifyCached(secretOf(1))).toBeUndefined();
    await keys.stop();
  });

  it("a finished lookup is not joined: the next check reads the cache or the store again", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1));
    store.live = false;
    await keys.verify(secretOf(1));
    store.live = true;
    await keys.verify(secretOf(1));
    expect(store.lookups).toBe(2);
  });
});

describe("overlapping lookups of one secret", () => {
  it("an older lookup that ends first leaves the newer one to be joined", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.start();
    const releases = store.holdEach();
    const older = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    store.onMessage!("key_other"); // an eviction: the next check starts a lookup of its own
    const newer = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(2));
    releases[0]();
    await older;
    const joining = keys.verify(secretOf(1));
    expect(store.lookups).toBe(2);
    for (const release of releases) release();
    expect(await joining).toMatchObject({ keyId: "key_a" });
    await newer;
    await keys.stop();
  });

  it("an older lookup that ends last answers too", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.start();
    const releases = store.holdEach();
    const older = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    store.onMessage!("key_other");
    const newer = keys.verify(secretOf(1));
    await vi.waitFor(() => expect(releases).toHaveLength(2));
    releases[1]();
    expect(await newer).toMatchObject({ keyId: "key_a" });
    releases[0]();
    expect(await older).toMatchObject({ keyId: "key_a" });
    await keys.stop();
  });
});

describe("the last-used writer", () => {
  afterEach(() => void vi.useRealTimers());

  it("writes every five seconds after start, and no more after stop", async () => {
    vi.useFakeTimers();
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    await keys.start();
    await keys.verify(secretOf(1));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(store.updates).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.updates).toHaveLength(1);
    await keys.stop();
    keys.verifyCached(secretOf(1)); // a use after stop is not written by a timer
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.updates).toHaveLength(1);
  });

  it("stop without start writes what is pending and resolves", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1));
    await keys.verify(secretOf(1));
    await expect(keys.stop()).resolves.toBeUndefined();
    expect(store.updates).toHaveLength(1);
  });
});

describe("expiry, on the replica's clock", () => {
  it("a key is accepted until its expiry and refused from that millisecond on, without a lookup", async () => {
    const { store, keys, advance } = setup();
    const expires = T0 + 60_000;
    store.add(secretOf(1), { id: "key_a", expires_at: new Date(expires) });
    expect(await keys.verify(secretOf(1))).toEqual({
      keyId: "key_a",
      projectId: "proj",
      keyName: "k",
      expiresAtMs: expires,
    });
    advance(59_999);
    expect(keys.verifyCached(secretOf(1))).toMatchObject({ keyId: "key_a" });
    advance(1);
    expect(keys.verifyCached(secretOf(1))).toBeNull();
    expect(await keys.verify(secretOf(1))).toBeUndefined();
    expect(store.lookups).toBe(1);
  });

  it("a key read from the store after its expiry is refused for good", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { expires_at: new Date(T0).toISOString() });
    expect(await keys.verify(secretOf(1))).toBeUndefined();
    expect(keys.verifyCached(secretOf(1))).toBeNull();
    expect(store.lookups).toBe(1);
  });

  it("a key read a millisecond before its expiry is accepted", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { expires_at: new Date(T0 + 1) });
    expect(await keys.verify(secretOf(1))).toMatchObject({ expiresAtMs: T0 + 1 });
  });
});

describe("revocation and resync", () => {
  it("a revocation heard from the store evicts the key and tells the listeners", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1), { id: "key_a" });
    store.add(secretOf(2), { id: "key_b" });
    await keys.start();
    await keys.verify(secretOf(1));
    await keys.verify(secretOf(2));
    const revoked: string[] = [];
    const off = keys.onRevoked((id) => void revoked.push(id));
    store.onMessage!("key_a");
    expect(keys.notificationsReceived).toBe(1);
    expect(revoked).toEqual(["key_a"]);
    expect(keys.verifyCached(secretOf(1))).toBeUndefined();
    expect(keys.verifyCached(secretOf(2))).toMatchObject({ keyId: "key_b" });
    off();
    store.onMessage!("key_b");
    expect(revoked).toEqual(["key_a"]);
    await keys.stop();
    expect(store.unlistened).toBe(1);
  });

  it("when notifications may have been missed, the cache is dropped and holders of sessions re-check", async () => {
    const { store, keys } = setup();
    store.add(secretOf(1));
    await keys.start();
    await keys.verify(secretOf(1));
    let resyncs = 0;
    const off = keys.onResync(() => void resyncs++);
    store.onReset!();
    expect(resyncs).toBe(1);
    expect(keys.verifyCached(secretOf(1))).toBeUndefined();
    off();
    store.onReset!();
    expect(resyncs).toBe(1);
    await keys.stop();
  });

  it("the refused secrets remembered are bounded: past 10,000 the memory starts over", async () => {
    const { store, keys } = setup();
    await keys.verify(secretOf("first"));
    for (let i = 0; i < 9_999; i++) await keys.verify(secretOf(i));
    expect(keys.verifyCached(secretOf("first"))).toBeNull();
    await keys.verify(secretOf("one more"));
    expect(keys.verifyCached(secretOf("first"))).toBeUndefined();
    expect(store.lookups).toBe(10_001);
  });
});

describe("last used", () => {
  it("records each key's latest use on the clock and writes them in one statement", async () => {
    const { store, keys, advance } = setup();
    store.add(secretOf(1), { id: "key_a" });
    store.add(secretOf(2), { id: "key_b" });
    await keys.flushLastUsed();
    expect(store.updates).toEqual([]);
    await keys.verify(secretOf(1));
    advance(1_000);
    await keys.verify(secretOf(2));
    advance(1_000);
    keys.verifyCached(secretOf(1));
    await keys.flushLastUsed();
    expect(store.updates).toEqual([
      [
        ["key_a", "key_b"],
        [new Date(T0 + 2_000).toISOString(), new Date(T0 + 1_000).toISOString()],
      ],
    ]);
    await keys.flushLastUsed();
    expect(store.updates).toHaveLength(1);
  });
});
