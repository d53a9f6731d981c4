/** File endpoint builders: uploads of random bytes, hashed downloads, full listings. */
import crypto from "k6/crypto";
import http from "k6/http";
import { authHeaders, url } from "./env.ts";

export interface Uploaded {
  status: number;
  id?: string;
  sha256: string;
  body: string;
}

export function upload(bytes: number, filename: string, name = "files.upload", expected: number[] = [200]): Uploaded {
  const data = crypto.randomBytes(bytes);
  const res = http.post(
    url("/v1/files"),
    { file: http.file(data, filename, "application/octet-stream"), purpose: "assistants" },
    { headers: authHeaders(), tags: { name }, timeout: 300_000, responseCallback: http.expectedStatuses(...expected) },
  );
  const body = typeof res.body === "string" ? res.body : "";
  let id: string | undefined;
  try {
    id = (JSON.parse(body) as { id?: string }).id;
  } catch {
    id = undefined;
  }
  return { status: res.status, id, sha256: crypto.sha256(data, "hex"), body };
}

export function downloadSha256(id: string): { status: number; sha256: string } {
  const res = http.get(url(`/v1/files/${id}/content`), {
    headers: authHeaders(),
    tags: { name: "files.content" },
    responseType: "binary",
    timeout: 300_000,
  });
  const body = res.body instanceof ArrayBuffer ? res.body : new ArrayBuffer(0);
  return { status: res.status, sha256: crypto.sha256(body, "hex") };
}

export function remove(id: string): number {
  return http.del(url(`/v1/files/${id}`), null, { headers: authHeaders(), tags: { name: "files.delete" } }).status;
}

/** GET after delete: 404 is the expected answer, not a failed request. */
export function statusOf(id: string): number {
  return http.get(url(`/v1/files/${id}`), {
    headers: authHeaders(),
    tags: { name: "files.get" },
    responseCallback: http.expectedStatuses(200, 404),
  }).status;
}

/** Every file id, following `after` while `has_more` (bounded). */
export function listAll(maxPages = 100): string[] | null {
  const ids: string[] = [];
  let after = "";
  for (let page = 0; page < maxPages; page++) {
    const res = http.get(url(`/v1/files?limit=100${after ? `&after=${after}` : ""}`), {
      headers: authHeaders(),
      tags: { name: "files.list" },
    });
    if (res.status !== 200 || typeof res.body !== "string") return null;
    const body = JSON.parse(res.body) as { data: Array<{ id: string }>; has_more: boolean; last_id?: string | null };
    ids.push(...body.data.map((f) => f.id));
    if (!body.has_more) return ids;
    after = body.last_id ?? body.data[body.data.length - 1]?.id ?? "";
  }
  return null;
}
