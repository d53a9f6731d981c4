/**
 * The file endpoints as the harness drives them. Uploads stream a multipart body of random
 * bytes generated on the fly (hashed as they go), so a file at a 512 MiB limit never sits in memory.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Http } from "./http.js";

const CHUNK = 64 * 1024;

export interface UploadResult {
  status: number;
  body: unknown;
  text: string;
  sha256: string;
  bytes: number;
  startedAt: number;
  latencyMs: number;
  /** Set when the transport failed (e.g. the server closed while we were still sending). */
  error?: string;
}

/** A multipart/form-data body (file first, then purpose, as the openai SDK sends it). */
function multipart(size: number, filename: string, purpose: string) {
  const boundary = `----agentport-loadtest-${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(
    `\r\n--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n--${boundary}--\r\n`,
  );
  const hash = createHash("sha256");
  async function* body(): AsyncGenerator<Uint8Array> {
    yield head;
    for (let sent = 0; sent < size; sent += CHUNK) {
      const part = randomBytes(Math.min(CHUNK, size - sent));
      hash.update(part);
      yield part;
    }
    yield tail;
  }
  return { boundary, body: body(), length: head.length + size + tail.length, digest: () => hash.digest("hex") };
}

export class FilesApi {
  private readonly http: Http;
  private readonly baseUrl: string;
  private readonly key: string;
  constructor(http: Http, baseUrl: string, key: string) {
    this.http = http;
    this.baseUrl = baseUrl;
    this.key = key;
  }

  async upload(size: number, filename: string, purpose = "assistants", timeoutMs = 120_000): Promise<UploadResult> {
    const form = multipart(size, filename, purpose);
    const startedAt = performance.now();
    let status = 0;
    let text = "";
    let error: string | undefined;
    try {
      const res = await this.http.send(`${this.baseUrl}/v1/files`, {
        method: "POST",
        key: this.key,
        headers: {
          "content-type": `multipart/form-data; boundary=${form.boundary}`,
          "content-length": String(form.length),
        },
        body: form.body,
        timeoutMs,
      });
      status = res.status;
      text = await res.body.text();
    } catch (err) {
      error = (err as { code?: string }).code ?? (err as Error).message;
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return {
      status,
      body,
      text,
      sha256: form.digest(),
      bytes: size,
      startedAt,
      latencyMs: performance.now() - startedAt,
      error,
    };
  }

  /** Downloads the content and hashes it as it streams. */
  async contentSha256(id: string): Promise<{ status: number; sha256: string; bytes: number }> {
    const res = await this.http.send(`${this.baseUrl}/v1/files/${encodeURIComponent(id)}/content`, {
      key: this.key,
      timeoutMs: 120_000,
    });
    const hash = createHash("sha256");
    let bytes = 0;
    for await (const chunk of res.body) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    return { status: res.status, sha256: hash.digest("hex"), bytes };
  }

  meta(id: string) {
    return this.http.json(`${this.baseUrl}/v1/files/${encodeURIComponent(id)}`, { key: this.key });
  }

  delete(id: string) {
    return this.http.json(`${this.baseUrl}/v1/files/${encodeURIComponent(id)}`, { method: "DELETE", key: this.key });
  }

  /**
   * Every file id, following `after` until `has_more` is false. Reports duplicates and a
   * listing that never ends (a server ignoring `after` loops clients forever).
   */
  async listAll(
    maxPages = 200,
  ): Promise<{ ids: string[]; duplicates: number; pages: number; complete: boolean; status: number }> {
    const ids: string[] = [];
    const seen = new Set<string>();
    let duplicates = 0;
    let after: string | undefined;
    for (let page = 1; page <= maxPages; page++) {
      const q = new URLSearchParams({ limit: "100" });
      if (after) q.set("after", after);
      const res = await this.http.json(`${this.baseUrl}/v1/files?${q}`, { key: this.key });
      const body = res.body as
        { data?: Array<{ id: string }>; has_more?: boolean; last_id?: string | null } | undefined;
      if (res.status !== 200 || !Array.isArray(body?.data))
        return { ids, duplicates, pages: page, complete: false, status: res.status };
      for (const f of body.data) {
        if (seen.has(f.id)) duplicates++;
        seen.add(f.id);
        ids.push(f.id);
      }
      if (!body.has_more) return { ids, duplicates, pages: page, complete: true, status: 200 };
      after = body.last_id ?? body.data.at(-1)?.id;
    }
    return { ids, duplicates, pages: maxPages, complete: false, status: 200 };
  }
}
