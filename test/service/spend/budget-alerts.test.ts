/**
 * Budget alerts' webhook (domain/spend/budget-alerts.ts) against a real HTTP receiver: posted once
 * per alert, retried on a 5xx, bounded by its timeout, never holding the caller, dropped past the
 * queue's bound with a log line.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BudgetAlerts, MAX_QUEUED, type BudgetAlert } from "../../../service/src/domain/spend/budget-alerts.js";

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function receiver(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void) {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (part: Buffer) => (text += String(part)));
    req.on("end", () => {
      bodies.push(JSON.parse(text));
      answer(bodies.length, req, res);
    });
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

const ALERT: BudgetAlert = {
  scope: "key",
  id: "key_1",
  projectId: "p",
  threshold: 80,
  limitMicros: 10_000_000,
  spentMicros: 8_000_001,
  period: "30d",
  resetsAt: Date.UTC(2030, 0, 1),
};

function logger() {
  const lines: Array<[object, string]> = [];
  return { lines, warn: (obj: object, msg: string) => void lines.push([obj, msg]) };
}

describe("budget alerts", () => {
  it("logs, counts and posts the alert; a 5xx is retried; the caller never waits for the delivery", async () => {
    const hook = await receiver((n, _req, res) => res.writeHead(n === 1 ? 503 : 204).end());
    const log = logger();
    const counted: string[] = [];
    const alerts = new BudgetAlerts(
      log,
      (scope, threshold) => void counted.push(`${scope}:${threshold}`),
      hook.url,
      fetch,
      10,
    );
    alerts.raise(ALERT);
    // Logged and counted before any delivery: the delivery runs beside the caller.
    expect(counted).toEqual(["key:80"]);
    expect(hook.bodies).toHaveLength(0);
    await alerts.idle();
    expect(counted).toEqual(["key:80"]);
    expect(log.lines[0][1]).toBe("budget: the key's budget passed 80% of its limit");
    expect(log.lines[0][0]).toMatchObject({ id: "key_1", limitUsd: 10, spentUsd: 8.000001, period: "30d" });
    expect(hook.bodies).toHaveLength(2);
    expect(hook.bodies[1]).toEqual({
      type: "budget.threshold",
      budget: "key",
      id: "key_1",
      project_id: "p",
      threshold: 80,
      limit_usd: 10,
      spent_usd: 8.000001,
      period: "30d",
      resets_at: Date.UTC(2030, 0, 1) / 1000,
    });
  });

  it("a receiver that refuses (4xx) is not retried, and one that fails every try ends in a log line", async () => {
    const refusing = await receiver((_n, _req, res) => res.writeHead(400).end());
    const log = logger();
    const alerts = new BudgetAlerts(log, () => {}, refusing.url, fetch, 10);
    alerts.raise(ALERT);
    await alerts.idle();
    expect(refusing.bodies).toHaveLength(1);
    expect(log.lines.at(-1)).toEqual([
      { budget: "key", id: "key_1", why: "HTTP 400" },
      "budget: the alert webhook did not take the alert",
    ]);
  });

  it("past its bound the queue drops an alert with a log line, the alert itself still logged and counted", async () => {
    // A receiver that never answers: the first delivery holds the queue.
    await receiver(() => {});
    const log = logger();
    let counted = 0;
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const alerts = new BudgetAlerts(log, () => void counted++, "http://127.0.0.1:9/hook", never, 10);
    for (let i = 0; i <= MAX_QUEUED + 1; i++) alerts.raise({ ...ALERT, id: `key_${i}` });
    expect(counted).toBe(MAX_QUEUED + 2);
    expect(
      log.lines.filter(([, msg]) => msg === "budget: the webhook queue is full; this alert is not posted"),
    ).toHaveLength(1);
  });
});
