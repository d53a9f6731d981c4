/**
 * The chat bench's verdicts from its measured rounds: the relay's and the limits' goals and the
 * Portkey peer's multiple, each the median of the rounds' paired ratios with
 * the lowest and highest round, so one run shows how far it can be trusted on this machine.
 */
import { fixed, table } from "../src/cli/table.js";
import { mean, pairedRatios, type Measured, type Spread } from "./lib/rounds.js";

export interface Target {
  name: string;
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface Pair {
  what: string;
  reference: Target;
  /** The reference with the spec's per-request duties added (chat-servers.ts): what any server owing them reaches. */
  floor?: Target;
  ours: Target;
  /** The same path on `npm start`'s way (the sources through tsx), for the llm relay's goal there. */
  npmStart?: Target;
  /** The spec floor's handler behind the service's pipeline, built as the artifact is (relay-ceiling.ts): the most any relay in it reaches. */
  ceiling?: Target;
  /** Portkey's gateway on the same path, when it serves it: measured in each round, beside ours. */
  peer?: Target;
  goal: number;
}

/** Each pair's rounds, by side. */
export type Rounds = Record<"reference" | "floor" | "ours" | "npmStart" | "ceiling" | "peer", Measured[]>;

/**
 * [what, pair, ours, against, goal]: the performance issue's goals for the relay's own cost (the
 * llm JSON relay against its ceiling, the pipeline with the floor's handler inside; the llm SSE
 * relay against the spec floor) and the limits' (on against off). A ceiling's line says whether
 * the floor goal is within its reach; `npm start`'s lines are figures, not goals.
 */
const GOALS: Array<
  [string, string, "ours" | "npmStart" | "ceiling", "floor" | "reference" | "ceiling", number | undefined]
> = [
  ["llm JSON, built, of its ceiling", "llm JSON", "ours", "ceiling", 0.92],
  ["llm SSE, built, of the spec floor", "llm SSE", "ours", "floor", 0.85],
  ["  its ceiling, SSE: the pipeline + the floor's handler", "llm SSE", "ceiling", "floor", 0.85],
  ["llm JSON, built, of the spec floor", "llm JSON", "ours", "floor", undefined],
  ["llm JSON, npm start, of the spec floor", "llm JSON", "npmStart", "floor", undefined],
  ["llm SSE, npm start, of the spec floor", "llm SSE", "npmStart", "floor", undefined],
  ["limits on vs off, llm JSON", "limits on (Redis, RPM+TPM) vs off, llm JSON", "ours", "reference", 0.85],
  ["limits on vs off, llm SSE", "limits on (Redis, RPM+TPM) vs off, llm SSE", "ours", "reference", 0.85],
];

export const PORTKEY_GOAL = 5;

const range = (s: Spread, digits: number) =>
  `${fixed(s.median, digits)} [${fixed(s.min, digits)}–${fixed(s.max, digits)}]`;

export function printGoals(list: Pair[], results: Rounds[], rounds: number): void {
  const rows: string[][] = [];
  for (const [what, pairName, side, against, goal] of GOALS) {
    const at = list.findIndex((p) => p.what === pairName);
    if (at < 0 || !results[at][side].length) continue;
    const { rps, cpu } = pairedRatios(results[at][side], results[at][against]);
    const met = goal !== undefined && rps.median >= goal;
    const verdict =
      goal === undefined ? "" : side === "ceiling" ? (met ? "reachable" : "beyond reach") : met ? "ok" : "MISSED";
    rows.push([what, range(rps, 2), range(cpu, 2), goal === undefined ? "" : `≥ ${goal}`, verdict]);
  }
  if (!rows.length) return;
  console.log(
    `\ngoals: the median of the ${rounds} rounds' paired ratios [lowest–highest round]; the verdict on req/s`,
  );
  console.log(table(["goal", "req/s ratio", "CPU ratio", "goal", "verdict"], rows));
}

/** Portkey against our llm agent on the same path, and the paths it fails (`failures`: its name → why). */
export function comparePortkey(list: Pair[], results: Rounds[], failures: Map<string, string>): void {
  const rows: string[][] = [];
  const verdict = (s: Spread) => `${range(s, 1).replace(" [", "× [")} ${s.median >= PORTKEY_GOAL ? "ok" : "MISSED"}`;
  for (const [i, p] of list.entries()) {
    if (!p.peer) continue;
    const { ours, peer } = results[i];
    const { rps, cpu } = pairedRatios(ours, peer);
    const m = mean(peer);
    rows.push([
      p.peer.name,
      fixed(m.rps),
      fixed(m.p99, 1),
      fixed(m.cpuPerRequest),
      String(m.failures),
      `agentport ${verdict(rps)} (req/s), ${verdict(cpu)} (CPU)`,
    ]);
  }
  for (const [name, failure] of failures) rows.push([name, "fails", "", "", "", `fails: ${failure}`]);
  if (!rows.length) return;
  console.log(
    `\npeer: Portkey's open-source gateway, in front of the same upstream stub, measured in each round beside ours (goal: agentport ≥ ${PORTKEY_GOAL}× its req/s; median [range] of the rounds)`,
  );
  console.log(
    table(["target", "req/s", "p99 ms", "CPU µs/req", "failures", "agentport's llm agent on the same path"], rows),
  );
}
