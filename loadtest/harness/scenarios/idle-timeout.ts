/**
 * Idle timeouts: a stream whose agent is silent for longer than the gateway's read timeout
 * survives because of heartbeats; the same stream from an instance without heartbeats is
 * cut, about one read timeout after its last byte — proof the timeout is the configured one.
 */
import { streamChat, type StreamOutcome } from "../stream-client.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

const r = (v: number | undefined) => (v === undefined ? null : Math.round(v));

export const idleTimeoutScenario: Scenario = {
  id: "idle-timeout",
  title: "Idle timeout: heartbeats keep a silent stream alive",
  async run(ctx): Promise<ScenarioOutcome> {
    const { target, limits } = ctx;
    if (!target.silentModel) {
      return {
        verdict: "skip",
        note: "no silent agent (pass --silent-model for a deployed target)",
        checks: [],
        figures: {},
      };
    }
    const readMs = limits.readTimeoutMs;
    const bound = (target.silenceMs ?? readMs * 2) + readMs * 3 + 10_000;
    const request = (baseUrl: string, key: string) =>
      streamChat(ctx.http, {
        baseUrl,
        key,
        model: target.silentModel!,
        content: "stay silent",
        timeoutMs: bound,
        expect: { model: target.silentModel },
      });

    ctx.progress("idle-timeout: one silent stream with heartbeats, one without");
    const [live, control] = await Promise.all([
      request(target.baseUrl, target.key),
      target.noHeartbeat ? request(target.noHeartbeat.baseUrl, target.noHeartbeat.key) : Promise.resolve(undefined),
    ]);
    for (const out of [live, control]) {
      if (out)
        ctx.recorder.add({
          scenario: "idle-timeout",
          op: "chat.silent",
          startedAt: out.startedAt,
          latencyMs: out.e2eMs,
          ok: out.report.ok,
          ttftMs: out.ttftMs,
        });
    }

    const heartbeatMs = limits.heartbeatSeconds * 1000;
    const checks: Check[] = [
      {
        name: "heartbeat interval below the read timeout",
        ok: heartbeatMs < readMs,
        detail: `${heartbeatMs} ms vs ${readMs} ms`,
      },
      {
        name: "silent stream with heartbeats survives past the read timeout",
        ok: live.report.ok && (live.ttftMs ?? 0) > readMs,
        detail: live.report.ok
          ? `first token after ${r(live.ttftMs)} ms, complete`
          : live.report.errors.slice(0, 2).join("; "),
      },
      {
        name: "heartbeats arrived during the silence",
        ok: live.report.heartbeats > 0 && live.longestGapMs < readMs,
        detail: `${live.report.heartbeats} heartbeats, longest gap ${r(live.longestGapMs)} ms`,
      },
    ];
    const figures: ScenarioFigures = {
      read_timeout_ms: readMs,
      heartbeat_ms: heartbeatMs,
      silence_ms: target.silenceMs ?? null,
      live_ttft_ms: r(live.ttftMs),
      live_heartbeats: live.report.heartbeats,
      live_longest_gap_ms: r(live.longestGapMs),
      live_complete: live.report.ok,
    };
    if (control) Object.assign(figures, controlChecks(control, readMs, checks));
    const note = control ? undefined : "negative control (no heartbeats) runs only with --local";
    return { verdict: checks.every((c) => c.ok) ? "pass" : "fail", note, checks, figures };
  },
};

type ScenarioFigures = Record<string, number | string | boolean | null>;

/** The stream without heartbeats must be cut, one read timeout after its last byte. */
function controlChecks(out: StreamOutcome, readMs: number, checks: Check[]): ScenarioFigures {
  // Headers not yet sent: nginx answers 504 and the silence counts from the request.
  const silentFor = out.status === 200 ? out.endedAt - out.lastByteAt : out.endedAt - out.startedAt;
  const cut = !out.report.done && (out.ended === "error" || out.status === 504 || out.ended === "end");
  // Our clock sees the last byte a little after nginx read it, so the cut can look early; a
  // quarter of slack still tells the configured timeout from any other (heartbeats, 60 s defaults).
  const low = readMs * 0.75;
  const high = readMs * 1.5 + 500;
  checks.push(
    {
      name: "without heartbeats the gateway cuts the stream",
      ok: cut && out.ended !== "timeout",
      detail: out.report.done
        ? "stream completed: the read timeout did not apply"
        : `cut (${out.status === 200 ? (out.error ?? "closed") : `status ${out.status}`})`,
    },
    {
      name: "cut after the configured read timeout",
      ok: cut && silentFor >= low && silentFor <= high,
      detail: `silent ${r(silentFor)} ms before the cut; expected ${Math.round(low)}-${Math.round(high)} ms`,
    },
  );
  return {
    control_status: out.status,
    control_cut: cut,
    control_silent_before_cut_ms: r(silentFor),
    control_end: out.ended,
  };
}
