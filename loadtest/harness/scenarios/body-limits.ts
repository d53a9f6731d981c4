/**
 * Body limits around each threshold: JSON at and just over the service's JSON limit (200 vs
 * 413 in the OpenAI envelope); uploads below and above the gateway's body buffer (both
 * accepted: the buffer spills to disk, it does not refuse); a file at and over the file limit
 * (200 vs 413) with nothing left behind — the listing and the blob store are unchanged.
 */
import { countFiles } from "../blob-count.js";
import { FilesApi, type UploadResult } from "../files-api.js";
import { isErrorEnvelope } from "../http.js";
import { chatBodyOfSize, streamChat } from "../stream-client.js";
import type { Check, RunContext, Scenario, ScenarioOutcome } from "../types.js";

const MiB = 1024 * 1024;
/** nginx logs this warning each time a request body exceeds client_body_buffer_size. */
const spills = (log?: () => string) =>
  log ? log().split("client request body is buffered to a temporary file").length - 1 : 0;
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));
const idOf = (u: UploadResult) => (u.body as { id?: string } | undefined)?.id;
const who = (body: unknown) => (isErrorEnvelope(body) ? "service (OpenAI envelope)" : "gateway (no envelope)");

export const bodyLimitsScenario: Scenario = {
  id: "body-limits",
  title: "Body limits: JSON, gateway buffer, file size",
  async run(ctx): Promise<ScenarioOutcome> {
    const checks: Check[] = [];
    const figures: Record<string, number | string | boolean | null> = {};
    await jsonLimits(ctx, checks, figures);
    // No new work after --max-duration: the uploads are the largest requests of a run.
    if (performance.now() < ctx.budget.deadline) await uploadLimits(ctx, checks, figures);
    else
      checks.push({
        name: "uploads ran within the time budget",
        ok: false,
        detail: "not started: --max-duration had passed",
      });
    return { verdict: checks.every((c) => c.ok) ? "pass" : "fail", checks, figures };
  },
};

async function jsonLimits(ctx: RunContext, checks: Check[], figures: Record<string, unknown>) {
  const { target, limits } = ctx;
  const limit = limits.jsonBodyLimitBytes;
  const send = (bytes: number) =>
    streamChat(ctx.http, {
      baseUrl: target.baseUrl,
      key: target.key,
      model: target.streamModel,
      content: "",
      body: chatBodyOfSize(target.streamModel, bytes),
      timeoutMs: 60_000,
      expect: { model: target.streamModel },
    });
  ctx.progress(`body-limits: JSON of ${limit} and ${limit + 1} bytes`);
  const at = await send(limit);
  const over = await send(limit + 1);
  let overBody: unknown;
  try {
    overBody = JSON.parse(over.errorBody ?? "");
  } catch {
    overBody = undefined;
  }
  checks.push(
    {
      name: `JSON body at the limit (${limit} B) accepted`,
      ok: at.status === 200 && at.report.ok,
      detail: `status ${at.status}${at.report.ok ? ", valid stream" : `; ${at.report.errors[0]}`}`,
    },
    {
      name: `JSON body over the limit (${limit + 1} B) refused with 413 and the OpenAI envelope`,
      ok: over.status === 413 && isErrorEnvelope(overBody),
      detail: `status ${over.status}, refused by ${who(overBody)}`,
    },
  );
  Object.assign(figures, {
    json_limit_bytes: limit,
    json_at_limit_status: at.status,
    json_over_limit_status: over.status,
  });
  for (const out of [at, over])
    ctx.recorder.add({
      scenario: "body-limits",
      op: "chat.json-size",
      startedAt: out.startedAt,
      latencyMs: out.e2eMs,
      ok: true,
    });
}

async function uploadLimits(ctx: RunContext, checks: Check[], figures: Record<string, unknown>) {
  const { target, limits } = ctx;
  const files = new FilesApi(ctx.http, target.baseUrl, target.key);
  const before = await files.listAll();
  const blobsBefore = target.blobDir ? countFiles(target.blobDir) : null;
  const ours: string[] = [];
  const record = (u: UploadResult, op: string) =>
    ctx.recorder.add({
      scenario: "body-limits",
      op,
      startedAt: u.startedAt,
      latencyMs: u.latencyMs,
      ok: u.status === 200 || u.status === 413,
    });

  // Either side of the gateway's body buffer: both must be accepted, byte for byte.
  const buffer = limits.clientBodyBufferBytes;
  // nginx keeps a body of up to 1.25 × client_body_buffer_size in memory when its length is
  // known (it over-allocates by a quarter): "above" must clear that to reach the spill path.
  const sizes = { below: Math.floor(buffer / 2), above: Math.floor(buffer * 1.25) + MiB / 2 };
  for (const [side, size] of Object.entries(sizes)) {
    if (size > limits.fileMaxBytes) {
      checks.push({
        name: `upload ${side} the gateway buffer`,
        ok: true,
        detail: `skipped: ${size} B exceeds the file limit`,
      });
      continue;
    }
    ctx.progress(`body-limits: upload ${size} B (${side} the ${limits.clientBodyBufferSize} buffer)`);
    const spillsBefore = spills(target.gatewayErrorLog);
    const up = await files.upload(size, `buffer-${side}.bin`);
    const spilled = spills(target.gatewayErrorLog) - spillsBefore;
    record(up, "files.upload-size");
    const id = idOf(up);
    if (id) ours.push(id);
    const down = id ? await files.contentSha256(id) : undefined;
    checks.push({
      name: `upload ${side} the gateway buffer (${size} B vs ${limits.clientBodyBufferSize}) accepted intact`,
      ok: up.status === 200 && down?.sha256 === up.sha256,
      detail: `status ${up.status}${up.error ? ` (${up.error})` : ""}, download ${down ? (down.sha256 === up.sha256 ? "matches" : "differs") : "n/a"}`,
    });
    figures[`upload_${side}_buffer_status`] = up.status;
    if (target.gatewayErrorLog) {
      figures[`upload_${side}_buffer_spilled`] = spilled > 0;
      // Proves the buffer is the stack's: only the larger body goes to a temp file.
      checks.push({
        name: `gateway ${side === "above" ? "spilled" : "kept in memory"} the body ${side} its buffer`,
        ok: side === "above" ? spilled > 0 : spilled === 0,
        detail: `${spilled} spill notice(s) in the gateway's log`,
      });
    }
  }

  const max = limits.fileMaxBytes;
  ctx.progress(`body-limits: upload ${max} B (the file limit)`);
  const atLimit = await files.upload(max, "at-limit.bin");
  record(atLimit, "files.upload-size");
  const atId = idOf(atLimit);
  if (atId) ours.push(atId);
  const atMeta = atId ? await files.meta(atId) : undefined;
  checks.push({
    name: `file at the limit (${max} B) accepted`,
    ok: atLimit.status === 200 && (atMeta?.body as { bytes?: number } | undefined)?.bytes === max,
    detail: `status ${atLimit.status}${atLimit.error ? ` (${atLimit.error})` : ""}, stored ${(atMeta?.body as { bytes?: number } | undefined)?.bytes ?? "?"} B`,
  });

  const listedBeforeOver = await files.listAll();
  const blobsBeforeOver = target.blobDir ? countFiles(target.blobDir) : null;
  ctx.progress(`body-limits: upload ${max + 1} B (over the file limit)`);
  const over = await files.upload(max + 1, "over-limit.bin");
  record(over, "files.upload-size");
  const listedAfterOver = await files.listAll();
  checks.push({
    name: `file over the limit (${max + 1} B) refused with 413`,
    ok: over.status === 413 && isErrorEnvelope(over.body),
    detail: `status ${over.status}${over.error ? ` (${over.error})` : ""}, refused by ${who(over.body)}`,
  });
  const blobsAfterOver = target.blobDir ? countFiles(target.blobDir) : null;
  checks.push({
    name: "refused upload left nothing behind",
    ok:
      listedAfterOver.complete &&
      sameSet(listedBeforeOver.ids, listedAfterOver.ids) &&
      blobsAfterOver === blobsBeforeOver,
    detail: `listing ${listedBeforeOver.ids.length} → ${listedAfterOver.ids.length} files${blobsBeforeOver === null ? "" : `, blobs ${blobsBeforeOver} → ${blobsAfterOver}`}`,
  });

  for (const id of ours) await files.delete(id);
  const after = await files.listAll();
  const blobsAfter = target.blobDir ? countFiles(target.blobDir) : null;
  checks.push({
    name: "listing back to where it started after cleanup",
    ok: before.complete && after.complete && sameSet(before.ids, after.ids) && blobsAfter === blobsBefore,
    detail: `${before.ids.length} → ${after.ids.length} files${blobsBefore === null ? "" : `, blobs ${blobsBefore} → ${blobsAfter}`}`,
  });
  Object.assign(figures, {
    client_body_buffer_bytes: buffer,
    max_body_bytes: limits.maxBodyBytes,
    file_max_bytes: max,
    file_at_limit_status: atLimit.status,
    file_at_limit_upload_ms: Math.round(atLimit.latencyMs),
    file_over_limit_status: over.status,
    file_over_limit_refused_by: over.status === 413 ? who(over.body) : null,
  });
}
