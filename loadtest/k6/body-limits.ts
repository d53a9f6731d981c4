/**
 * Body sizes around each limit, once each: JSON at and over the JSON limit (200 vs 413 with
 * the OpenAI envelope), uploads below and above the gateway's body buffer (both 200), a file
 * at and over the file limit (200 vs 413) with the listing unchanged afterwards.
 */
import { check } from "k6";
import type { Options } from "k6/options";
import { chatBodyOfSize, isErrorEnvelope, postChat } from "./lib/chat.ts";
import { limits, str } from "./lib/env.ts";
import { downloadSha256, listAll, remove, upload } from "./lib/files.ts";

const MODEL = str("STREAM_MODEL", "agentport/synthetic-20");

export const options: Options = {
  scenarios: {
    json_limit: { executor: "per-vu-iterations", exec: "jsonLimit", vus: 1, iterations: 1 },
    upload_limits: {
      executor: "per-vu-iterations",
      exec: "uploadLimits",
      vus: 1,
      iterations: 1,
      startTime: "1s",
      maxDuration: "20m",
    },
  },
  thresholds: {
    http_req_failed: [{ threshold: "rate==0", abortOnFail: true }],
    "http_req_duration{name:chat.json-limit}": ["p(95)<10000"],
    checks: ["rate==1"],
  },
};

export function jsonLimit(): void {
  const at = postChat(chatBodyOfSize(MODEL, limits.jsonBodyLimitBytes), { name: "chat.json-limit" });
  const over = postChat(chatBodyOfSize(MODEL, limits.jsonBodyLimitBytes + 1), {
    name: "chat.json-over",
    expected: [413],
  });
  check(null, {
    "JSON at the limit: 200": () => at.status === 200,
    "JSON over the limit: 413": () => over.status === 413,
    "413 carries the OpenAI envelope": () => isErrorEnvelope(over.body as string | null),
  });
}

export function uploadLimits(): void {
  const before = listAll();
  const kept: string[] = [];
  for (const [label, size] of [
    ["below", Math.floor(limits.clientBodyBufferBytes / 2)],
    ["above", Math.floor(limits.clientBodyBufferBytes * 1.25) + 512 * 1024],
  ] as const) {
    if (size > limits.fileMaxBytes) continue;
    const up = upload(size, `buffer-${label}.bin`, "files.upload-buffer");
    if (up.id) kept.push(up.id);
    check(up, {
      [`upload ${label} the gateway buffer: 200`]: (u) => u.status === 200,
      [`upload ${label} the gateway buffer: intact`]: (u) => !!u.id && downloadSha256(u.id).sha256 === u.sha256,
    });
  }
  const atLimit = upload(limits.fileMaxBytes, "at-limit.bin", "files.upload-limit");
  if (atLimit.id) kept.push(atLimit.id);
  const listed = listAll();
  const over = upload(limits.fileMaxBytes + 1, "over-limit.bin", "files.upload-over", [413]);
  const listedAfter = listAll();
  check(null, {
    "file at the limit: 200": () => atLimit.status === 200,
    "file over the limit: 413": () => over.status === 413,
    "413 carries the OpenAI envelope": () => isErrorEnvelope(over.body),
    "refused upload left nothing behind": () => !!listed && !!listedAfter && listed.length === listedAfter.length,
  });
  for (const id of kept) remove(id);
  const after = listAll();
  check(null, { "listing back to where it started": () => !!before && !!after && before.length === after.length });
}
