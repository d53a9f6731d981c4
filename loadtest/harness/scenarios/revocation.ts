/**
 * Revocation under load: workers hammer the API with a fresh key; mid-run the key is deleted.
 * Every request that starts after the delete has returned must be refused (401) — no cache,
 * no grace period — while requests with other keys keep working.
 */
import { isErrorEnvelope } from "../http.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

interface Attempt {
  start: number;
  status: number;
  envelope: boolean;
}

export const revocationScenario: Scenario = {
  id: "revocation",
  title: "Revocation under load: a deleted key is refused on the next request",
  async run(ctx): Promise<ScenarioOutcome> {
    const { target, budget, http } = ctx;
    if (!target.keyAdmin) {
      return {
        verdict: "skip",
        note: "no key admin (pass --member-token and --project for a deployed target)",
        checks: [],
        figures: {},
      };
    }
    const key = await target.keyAdmin.create(`loadtest-revocation-${Date.now()}`);
    const url = `${target.baseUrl}/v1/models`;
    const attempts: Attempt[] = [];
    const half = Math.max(20, Math.floor(budget.requests / 2));
    let deletedAt = Infinity;
    let startedAfter = 0;

    const worker = async () => {
      while (performance.now() < budget.deadline && startedAfter < half) {
        const start = performance.now();
        if (start > deletedAt) startedAfter++;
        const res = await http.json(url, { key: key.secret, timeoutMs: 30_000 });
        attempts.push({ start, status: res.status, envelope: isErrorEnvelope(res.body) });
        ctx.recorder.add({
          scenario: "revocation",
          op: "models.list",
          startedAt: start,
          latencyMs: performance.now() - start,
          ok: true,
        });
      }
    };
    const deleter = async () => {
      while (attempts.length < half && performance.now() < budget.deadline) await new Promise((r) => setImmediate(r));
      ctx.progress("revocation: deleting the key mid-run");
      await target.keyAdmin!.delete(key.id);
      deletedAt = performance.now();
    };
    await Promise.all([deleter(), ...Array.from({ length: budget.concurrency }, worker)]);

    const before = attempts.filter((a) => a.start <= deletedAt);
    const after = attempts.filter((a) => a.start > deletedAt);
    const acceptedBefore = before.filter((a) => a.status === 200).length;
    const refusedBefore = before.filter((a) => a.status === 401).length;
    const acceptedAfter = after.filter((a) => a.status !== 401).length;
    const other = await http.json(url, { key: target.key });
    const checks: Check[] = [
      {
        name: "key accepted before deletion",
        ok: acceptedBefore >= half,
        detail: `${acceptedBefore} accepted, ${refusedBefore} refused while in flight during the delete`,
      },
      {
        name: "every request started after the delete is refused (401)",
        ok: after.length > 0 && acceptedAfter === 0,
        detail: `${after.length - acceptedAfter}/${after.length} refused`,
      },
      {
        name: "refusals carry the OpenAI envelope",
        ok: after.every((a) => a.status !== 401 || a.envelope),
        detail: after.some((a) => !a.envelope) ? "some without" : "all",
      },
      { name: "other keys unaffected", ok: other.status === 200, detail: `status ${other.status}` },
    ];
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures: {
        requests: attempts.length,
        accepted_before_delete: acceptedBefore,
        refused_during_delete: refusedBefore,
        requests_after_delete: after.length,
        accepted_after_delete: acceptedAfter,
      },
    };
  },
};
