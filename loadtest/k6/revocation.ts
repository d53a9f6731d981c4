/**
 * Revocation under load: background streams keep the service busy with API_KEY while one VU
 * creates a key (member token), uses it, deletes it, and must be refused on the very next request.
 *   k6 run -e MEMBER_TOKEN=<owner JWT> -e PROJECT=<project id> … loadtest/k6/revocation.ts
 */
import { check } from "k6";
import http from "k6/http";
import type { Options } from "k6/options";
import { chatBody, isErrorEnvelope, postChat } from "./lib/chat.ts";
import { authHeaders, num, str, url } from "./lib/env.ts";

const MODEL = str("STREAM_MODEL", "agentport/synthetic-20");

export const options: Options = {
  scenarios: {
    background: { executor: "constant-vus", exec: "background", vus: num("VUS", 16), duration: str("DURATION", "30s") },
    revoke: { executor: "per-vu-iterations", exec: "revoke", vus: 1, iterations: 1, startTime: "5s" },
  },
  thresholds: {
    "http_req_failed{scenario:background}": [{ threshold: "rate<0.01", abortOnFail: true, delayAbortEval: "10s" }],
    "http_req_duration{name:models.list}": ["p(95)<1000"],
    checks: ["rate==1"],
  },
};

export function background(): void {
  const res = postChat(chatBody(MODEL, "background"), { name: "chat.stream" });
  check(res, { "background stream 200": (r) => r.status === 200 });
}

export function revoke(): void {
  const keys = url(`/v1/organization/projects/${str("PROJECT")}/api_keys`);
  const member = authHeaders(str("MEMBER_TOKEN"), { "Content-Type": "application/json" });
  const created = http.post(keys, JSON.stringify({ name: `k6-revocation-${Date.now()}` }), {
    headers: member,
    tags: { name: "keys.create" },
  });
  const key = created.json() as { id: string; secret: string };
  const models = (expected: number) =>
    http.get(url("/v1/models"), {
      headers: authHeaders(key.secret),
      tags: { name: "models.list" },
      responseCallback: http.expectedStatuses(expected),
    });
  const before = Array.from({ length: 20 }, () => models(200).status);
  const deleted = http.del(`${keys}/${key.id}`, null, { headers: member, tags: { name: "keys.delete" } });
  const after = Array.from({ length: 20 }, () => models(401));
  check(null, {
    "key created": () => created.status === 201,
    "key accepted before deletion": () => before.every((s) => s === 200),
    "key deleted": () => deleted.status === 200,
    "refused on the very next request": () => after[0].status === 401,
    "refused on every later request": () => after.every((r) => r.status === 401),
    "refusals carry the OpenAI envelope": () => after.every((r) => isErrorEnvelope(r.body as string | null)),
  });
}
