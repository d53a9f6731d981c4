/**
 * Every way an upload can fail leaves nothing behind: no row, no blob (complete or partial), no
 * pending deletion — on each blob store. Plus the 4xx answers for bad forms and unknown ids.
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOB_KINDS, startBlobBackend, type Emulator } from "../../helpers/blob-emulators.js";
import { buildFilesApp, eventually, type FilesTestApp } from "../../helpers/files.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";

const LIMIT = 1024 * 1024;
const nothingLeft = { blobs: [], partials: [], rows: 0, pending: 0 };
const BOUNDARY = "----agentport-test-boundary";

/** The opening of a multipart form whose file part is still being sent. */
const formHead = (purposeFirst: boolean) =>
  Buffer.from(
    (purposeFirst ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n` : "") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
const formTail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

describe.each(BLOB_KINDS)("upload failures (%s blobs)", (blobKind) => {
  let backend: Emulator;
  let t: FilesTestApp;
  let client: OpenAI;
  let baseURL: string;
  let secret: string;

  beforeAll(async () => {
    backend = await startBlobBackend(blobKind);
    t = await buildFilesApp("pglite", backend, { FILE_MAX_BYTES: String(LIMIT) });
    baseURL = await listen(t.app);
    secret = (await t.createKey("proj-a")).secret;
    client = openaiClient(baseURL, secret);
  });
  afterAll(async () => {
    await t?.close();
    await backend?.stop();
  });

  /** POSTs a form sent in chunks without a Content-Length, so the server must stream it. */
  function chunkedUpload(chunks: Buffer[]): Promise<{ status: number; body: any }> {
    const url = new URL(`${baseURL}/files`);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        },
        (res) => {
          let data = "";
          res.on("data", (d) => (data += d));
          res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
        },
      );
      req.on("error", reject);
      for (const c of chunks) req.write(c);
      req.end();
    });
  }

  it("a file over FILE_MAX_BYTES is a 413 and leaves nothing (declared length)", async () => {
    const err = await client.files
      .create({ file: await toFile(randomBytes(LIMIT + 2 * 1024 * 1024), "big.bin"), purpose: "assistants" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(413);
    expect(err.error).toEqual({
      message: `The file is larger than the limit of ${LIMIT} bytes.`,
      type: "invalid_request_error",
      param: "file",
      code: "file_too_large",
    });
    expect(await t.leftovers()).toEqual(nothingLeft);
  });

  it("a file one byte over the limit, streamed without a length, is a 413; its partial blob is removed", async () => {
    const res = await chunkedUpload([formHead(true), randomBytes(LIMIT / 2), randomBytes(LIMIT / 2 + 1), formTail]);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("file_too_large");
    expect(
      await eventually(
        () => t.leftovers(),
        (l) => l.pending === 0,
      ),
    ).toEqual(nothingLeft);
  });

  it("a file of exactly the limit is accepted", async () => {
    const res = await chunkedUpload([
      formHead(false),
      randomBytes(LIMIT),
      Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants`),
      formTail,
    ]);
    expect(res.status).toBe(200);
    expect(res.body.bytes).toBe(LIMIT);
    await client.files.delete(res.body.id);
    expect(await t.leftovers()).toEqual(nothingLeft);
  });

  it("a client that disconnects mid-upload leaves nothing", async () => {
    const url = new URL(`${baseURL}/files`);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(LIMIT),
      },
    });
    req.on("error", () => {});
    req.write(formHead(false));
    req.write(randomBytes(256 * 1024));
    // The server has begun the upload once its intent is recorded; then the client vanishes.
    expect(
      (
        await eventually(
          () => t.leftovers(),
          (l) => l.pending === 1,
        )
      ).pending,
    ).toBe(1);
    req.destroy();
    expect(
      await eventually(
        () => t.leftovers(),
        (l) => l.pending === 0,
      ),
    ).toEqual(nothingLeft);
  });

  it("a storage failure mid-upload is a 503 and leaves nothing", async () => {
    t.blobs.failPutAfterBytes = 200 * 1024;
    try {
      const err = await client.files
        .create({ file: await toFile(randomBytes(900 * 1024), "x.bin"), purpose: "assistants" })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(503);
      expect(err.error).toMatchObject({ type: "server_error", code: "storage_unavailable" });
      expect(JSON.stringify(err.error)).not.toMatch(/mid-write/);
    } finally {
      t.blobs.failPutAfterBytes = undefined;
    }
    expect(await t.leftovers()).toEqual(nothingLeft);
  });

  it("a download while the blob store is down is a clean 503 in the envelope, and works again after", async () => {
    const f = await client.files.create({
      file: await toFile(Buffer.from("still here"), "d.txt"),
      purpose: "assistants",
    });
    t.blobs.failGets = true;
    try {
      const err = await client.files.content(f.id).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(503);
      expect(err.error).toMatchObject({ type: "server_error", code: "storage_unavailable" });
    } finally {
      t.blobs.failGets = false;
    }
    expect(await (await client.files.content(f.id)).text()).toBe("still here");
    await client.files.delete(f.id);
  });

  it("a blob whose delete fails stays recorded and is removed by the next sweep", async () => {
    const f = await client.files.create({
      file: await toFile(Buffer.from("keep trying"), "k.txt"),
      purpose: "assistants",
    });
    t.blobs.failDeletes = 1;
    expect(await client.files.delete(f.id)).toEqual({ id: f.id, object: "file", deleted: true });
    await expect(client.files.retrieve(f.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const pending = await t.app.files.deletions.pending();
    expect(pending).toEqual([
      { blobKey: f.id, reason: "file deleted", attempts: 1, lastError: "storage backend refused the delete" },
    ]);
    expect(await t.blobs.exists(f.id)).toBe(true);

    // Backoff pushed it into the future; bring it due and sweep as the timer would.
    await t.store.db.query("UPDATE blob_deletions SET not_before = now()");
    expect(await t.app.files.deletions.sweep()).toEqual({ deleted: 1, failed: 0 });
    expect(await t.leftovers()).toEqual(nothingLeft);
  });

  it("an upload cut by a crash is swept later; a blob a file owns never is", async () => {
    const f = await client.files.create({ file: await toFile(Buffer.from("owned"), "o.txt"), purpose: "assistants" });
    const orphan = await t.app.files.begin("proj-a");
    await orphan.write((await import("node:stream")).Readable.from([Buffer.from("half")]), {
      filename: "h.txt",
      mimeType: "text/plain",
    });
    // As if the process died here: the intent row is all that remembers the blob.
    await t.store.db.query(
      "INSERT INTO blob_deletions (blob_key, reason, not_before) VALUES ($1, 'upload in progress', now()) ON CONFLICT (blob_key) DO UPDATE SET not_before = now()",
      [f.id],
    );
    await t.store.db.query("UPDATE blob_deletions SET not_before = now()");
    expect(await t.app.files.deletions.sweep()).toEqual({ deleted: 1, failed: 0 });
    expect(await t.blobs.list()).toEqual([f.id]);
    expect((await client.files.content(f.id)).ok).toBe(true);
    await client.files.delete(f.id);
    expect(await t.leftovers()).toEqual(nothingLeft);
  });
});

describe("upload form errors", () => {
  let backend: Emulator;
  let t: FilesTestApp;
  let baseURL: string;
  let auth: { authorization: string };

  beforeAll(async () => {
    backend = await startBlobBackend("local");
    t = await buildFilesApp("pglite", backend);
    baseURL = await listen(t.app);
    auth = { authorization: `Bearer ${(await t.createKey()).secret}` };
  });
  afterAll(async () => {
    await t?.close();
    await backend?.stop();
  });

  const post = async (fields: Array<[string, string | Blob, string?]>) => {
    const form = new FormData();
    for (const [name, value, filename] of fields) {
      if (typeof value === "string") form.append(name, value);
      else form.append(name, value, filename);
    }
    const res = await fetch(`${baseURL}/files`, { method: "POST", headers: auth, body: form });
    return { status: res.status, body: await res.json() };
  };
  const blob = (s: string) => new Blob([s], { type: "text/plain" });

  it("purpose may come before or after the file", async () => {
    const a = await post([
      ["purpose", "assistants"],
      ["file", blob("first"), "a.txt"],
    ]);
    const b = await post([
      ["file", blob("second"), "b.txt"],
      ["purpose", "vision"],
    ]);
    expect(a).toMatchObject({ status: 200, body: { filename: "a.txt", purpose: "assistants", bytes: 5 } });
    expect(b).toMatchObject({ status: 200, body: { filename: "b.txt", purpose: "vision", bytes: 6 } });
  });

  it.each([
    [
      "a bad purpose",
      [
        ["file", "x", "x.txt"],
        ["purpose", "wrong"],
      ],
      "purpose",
      "invalid_value",
    ],
    ["a missing purpose", [["file", "x", "x.txt"]], "purpose", "missing_required_parameter"],
    ["a missing file field", [["purpose", "assistants"]], "file", "missing_required_parameter"],
    [
      "an empty file",
      [
        ["purpose", "assistants"],
        ["file", "", "empty.txt"],
      ],
      "file",
      "empty_file",
    ],
    [
      "a file sent as a plain field",
      [
        ["purpose", "assistants"],
        ["file", "not a file part"],
      ],
      "file",
      "invalid_value",
    ],
    [
      "a file under another name",
      [
        ["purpose", "assistants"],
        ["upload", "x", "x.txt"],
      ],
      "upload",
      "unknown_parameter",
    ],
    [
      "an unknown field",
      [
        ["purpose", "assistants"],
        ["colour", "blue"],
        ["file", "x", "x.txt"],
      ],
      "colour",
      "unknown_parameter",
    ],
  ] as const)("%s is a 400 naming the parameter, and stores nothing", async (_name, fields, param, code) => {
    const res = await post(fields.map(([n, v, f]) => (f === undefined ? [n, v] : [n, blob(v), f])));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: "invalid_request_error", param, code });
    expect(typeof res.body.error.message).toBe("string");
    const left = await t.leftovers();
    expect(left.pending).toBe(0);
    expect(left.partials).toEqual([]);
    expect(left.blobs.length).toBe(left.rows);
  });

  /** A form whose file part has exactly these headers, sent byte for byte. */
  const postRaw = async (fileHeaders: string) => {
    const body = Buffer.concat([
      Buffer.from(`--zz\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--zz\r\n`),
      Buffer.from(fileHeaders, "latin1"),
      Buffer.from(`\r\n\r\nabc\r\n--zz--\r\n`),
    ]);
    const res = await fetch(`${baseURL}/files`, {
      method: "POST",
      headers: { ...auth, "content-type": "multipart/form-data; boundary=zz" },
      body,
    });
    return { status: res.status, body: await res.json() };
  };

  it("a filename with an encoded NUL is stored with the NUL replaced, not refused as a storage failure", async () => {
    const res = await postRaw(`Content-Disposition: form-data; name="file"; filename*=UTF-8''a%00b.txt`);
    expect(res).toMatchObject({ status: 200, body: { filename: "a_b.txt", bytes: 3 } });
  });

  it("a part type with control characters is stored as application/octet-stream, so the file can be downloaded", async () => {
    const res = await postRaw(
      `Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/pl\x01ain`,
    );
    expect(res.status).toBe(200);
    const content = await fetch(`${baseURL}/files/${res.body.id}/content`, { headers: auth });
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect(await content.text()).toBe("abc");
  });

  it("purpose sent twice is a 400 naming purpose, whichever value comes last, and stores nothing", async () => {
    for (const [first, second] of [
      ["assistants", "bogus"],
      ["bogus", "assistants"],
      ["batch", "vision"],
    ]) {
      const res = await post([
        ["purpose", first],
        ["purpose", second],
        ["file", blob("x"), "twice.txt"],
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: "invalid_request_error", param: "purpose", code: "invalid_value" });
    }
    const listed = await (await fetch(`${baseURL}/files`, { headers: auth })).json();
    expect(listed.data.map((f: { filename: string }) => f.filename)).not.toContain("twice.txt");
    const left = await t.leftovers();
    expect(left.pending).toBe(0);
    expect(left.blobs.length).toBe(left.rows);
  });

  it("a long filename is cut before a character it would split, never leaving half of it", async () => {
    const res = await post([
      ["purpose", "assistants"],
      ["file", blob("x"), "a".repeat(254) + "\u{1F600}.txt"],
    ]);
    expect(res).toMatchObject({ status: 200, body: { filename: "a".repeat(254) } });
  });

  it("a malformed form or one with too many fields is a 400 in the OpenAI envelope, and stores nothing", async () => {
    for (const [contentType, body] of [
      ["multipart/form-data", "--x\r\n"],
      ["multipart/form-data; boundary=zz", "garbage"],
    ]) {
      const res = await fetch(`${baseURL}/files`, {
        method: "POST",
        headers: { ...auth, "content-type": contentType },
        body,
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({
        type: "invalid_request_error",
        param: null,
        code: "invalid_multipart",
      });
    }
    const many = await post([
      ["purpose", "assistants"],
      ...Array.from({ length: 9 }, (_, i) => [`expires_after[x${i}]`, "1"] as [string, string]),
      ["file", blob("x"), "many.txt"],
    ]);
    expect(many.status).toBe(400);
    expect(many.body.error).toEqual({
      message: "The form has too many fields; send 'file' and 'purpose'.",
      type: "invalid_request_error",
      param: null,
      code: "too_many_fields",
    });
    const left = await t.leftovers();
    expect(left.pending).toBe(0);
    expect(left.blobs.length).toBe(left.rows);
  });

  it("two files in one form are a 400", async () => {
    const res = await post([
      ["purpose", "assistants"],
      ["file", blob("one"), "1.txt"],
      ["file", blob("two"), "2.txt"],
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: "file", code: "too_many_files" });
  });

  it("a JSON body is a 415; unknown ids are a 404; bad list parameters are a 400", async () => {
    const json = await fetch(`${baseURL}/files`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    for (const [method, path] of [
      ["GET", "file-nope"],
      ["DELETE", "file-nope"],
      ["GET", "file-nope/content"],
    ]) {
      const res = await fetch(`${baseURL}/files/${path}`, { method, headers: auth });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ param: "file_id", code: "file_not_found" });
    }
    const bad = await fetch(`${baseURL}/files?limit=0`, { headers: auth });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe("limit");
    const order = await fetch(`${baseURL}/files?order=sideways`, { headers: auth });
    expect((await order.json()).error.param).toBe("order");
  });

  it("without a key nothing is reachable", async () => {
    const res = await fetch(`${baseURL}/files`);
    expect(res.status).toBe(401);
  });
});
