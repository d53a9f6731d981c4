/**
 * One full garbage collection once the server is ready, just before it listens, of the kind V8
 * runs under memory pressure.
 *
 * Starting allocates heavily for a moment (modules, the routes' schemas, the store, migrations):
 * V8 grows its young generation to its maximum on the way (2 x 16 MB) and promotes what survives,
 * yet runs no major collection, and an idle process gives V8 no reason to run one later. So that
 * memory stayed resident for good: ~40 MB of an idle replica's RSS. This collection shrinks the
 * young generation, compacts the old one and returns freed pages to the system. It changes no
 * limit: under load the young generation grows back as before. The cost is one pause (tens of ms,
 * a few hundred with tsx and PGlite) before the server starts listening, so no request waits on it.
 *
 * Node exposes no call for it, so `gc` is taken from a fresh context created while V8's
 * --expose-gc flag is briefly on (the way test runners do); the service's own global stays clean.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Gc = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

function exposedGc(): Gc {
  // Node types gc() as maybe returning a promise (its async flavor); the sync flavor asked for here does not.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as Gc;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

export function collectStartupGarbage(): void {
  exposedGc()({ type: "major", execution: "sync", flavor: "last-resort" });
}
