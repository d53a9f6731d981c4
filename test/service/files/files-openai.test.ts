/** The Files API through the official openai client, on each blob store and both metadata stores. */
import { createHash, randomBytes } from "node:crypto";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOB_KINDS, startBlobBackend, type BlobKind, type Emulator } from "../../helpers/blob-emulators.js";
import { buildFilesApp, type FilesTestApp } from "../../helpers/files.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";
import { STORE_KINDS, type StoreKind } from "../../helpers/store.js";

const MATRIX: Array<[BlobKind, StoreKind]> = BLOB_KINDS.flatMap((b) =>
  STORE_KINDS.map((s) => [b, s] as [BlobKind, StoreKind]),
);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.each(MATRIX)("files with the openai client (%s blobs, %s)", (blobKind, storeKind) => {
  let backend: Emulator;
  let t: FilesTestApp;
  let client: OpenAI;
  let baseURL: string;
  let secret: string;

  beforeAll(async () => {
    backend = await startBlobBackend(blobKind);
    t = await buildFilesApp(storeKind, backend);
    baseURL = await listen(t.app);
    secret = (await t.createKey("proj-a")).secret;
    client = openaiClient(baseURL, secret);
  });
  afterAll(async () => {
    await t?.close();
    await backend?.stop();
  });

  it("create, retrieve, content and delete a binary file; the bytes come back exactly", async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 7);
    const created = await client.files.create({ file: await toFile(bytes, "data.bin"), purpose: "user_data" });
    expect(Object.keys(created).sort()).toEqual([
      "bytes",
      "created_at",
      "filename",
      "id",
      "object",
      "purpose",
      "status",
    ]);
    expect(created).toMatchObject({
      object: "file",
      bytes: bytes.length,
      filename: "data.bin",
      purpose: "user_data",
      status: "processed",
    });
    expect(created.id).toMatch(/^file-[0-9a-f]{32}$/);
    expect(created.created_at).toBeGreaterThan(Date.now() / 1000 - 60);

    expect(await client.files.retrieve(created.id)).toEqual(created);
    const content = Buffer.from(await (await client.files.content(created.id)).arrayBuffer());
    expect(sha(content)).toBe(sha(bytes));
    const stored = await t.store.db.query<{ sha256: Uint8Array }>("SELECT sha256 FROM files WHERE id = $1", [
      created.id,
    ]);
    expect(Buffer.from(stored.rows[0].sha256).toString("hex")).toBe(sha(bytes));

    expect(await client.files.delete(created.id)).toEqual({ id: created.id, object: "file", deleted: true });
    await expect(client.files.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.files.content(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(await t.blobs.list()).not.toContain(created.id);
    expect((await t.leftovers()).pending).toBe(0);
  });

  it("list auto-paginates over several pages, newest first, each file exactly once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await client.files.create({
            file: await toFile(Buffer.from(`page file ${i}`), `p${i}.txt`),
            purpose: "batch",
          })
        ).id,
      );
    }
    const seen: string[] = [];
    for await (const f of client.files.list({ limit: 2, purpose: "batch" })) seen.push(f.id);
    expect(seen).toEqual([...ids].reverse());

    const asc: string[] = [];
    for await (const f of client.files.list({ limit: 3, order: "asc", purpose: "batch" })) asc.push(f.id);
    expect(asc).toEqual(ids);

    const page = await client.files.list({ limit: 2, purpose: "batch" });
    expect(page.data.map((f) => f.id)).toEqual([ids[4], ids[3]]);
    const raw = await (
      await fetch(`${baseURL}/files?limit=2&purpose=batch`, { headers: { authorization: `Bearer ${secret}` } })
    ).json();
    expect(raw).toMatchObject({ object: "list", first_id: ids[4], last_id: ids[3], has_more: true });
  });

  it("paging with after visits each file once while files are added", async () => {
    const before: string[] = [];
    for (let i = 0; i < 4; i++) {
      before.push(
        (await client.files.create({ file: await toFile(Buffer.from(`grow ${i}`), `g${i}.txt`), purpose: "evals" })).id,
      );
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (let pageNo = 0; pageNo < 10; pageNo++) {
      const page = await client.files.list({ limit: 1, order: "asc", purpose: "evals", after });
      seen.push(...page.data.map((f) => f.id));
      // A new file arrives between every two pages.
      await client.files.create({
        file: await toFile(Buffer.from(`late ${pageNo}`), `late${pageNo}.txt`),
        purpose: "evals",
      });
      if (!page.has_more) break;
      after = page.data.at(-1)!.id;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
  });

  it("content is streamed with type, length, disposition, and Range gives 206", async () => {
    const text = Buffer.from("0123456789abcdefghij");
    const f = await client.files.create({
      file: await toFile(text, "résumé notes.txt", { type: "text/plain" }),
      purpose: "assistants",
    });
    const auth = { authorization: `Bearer ${secret}` };
    const full = await fetch(`${baseURL}/files/${f.id}/content`, { headers: auth });
    expect(full.status).toBe(200);
    expect(full.headers.get("content-type")).toBe("text/plain");
    expect(full.headers.get("content-length")).toBe("20");
    expect(full.headers.get("content-disposition")).toBe(
      `attachment; filename="r_sum_ notes.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20notes.txt`,
    );
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    expect(await full.text()).toBe(text.toString());

    const head = await fetch(`${baseURL}/files/${f.id}/content`, { method: "HEAD", headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("20");
    expect(await head.text()).toBe("");

    const part = await fetch(`${baseURL}/files/${f.id}/content`, { headers: { ...auth, range: "bytes=5-9" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 5-9/20");
    expect(part.headers.get("content-length")).toBe("5");
    expect(await part.text()).toBe("56789");

    const tail = await fetch(`${baseURL}/files/${f.id}/content`, { headers: { ...auth, range: "bytes=-3" } });
    expect(await tail.text()).toBe("hij");
    const outside = await fetch(`${baseURL}/files/${f.id}/content`, { headers: { ...auth, range: "bytes=20-" } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get("content-range")).toBe("bytes */20");
    expect((await outside.json()).error.code).toBe("range_not_satisfiable");
  });

  it("an uploader's active type (HTML, SVG) is downloaded as octet-stream attachment with nosniff; passive types keep theirs", async () => {
    const auth = { authorization: `Bearer ${secret}` };
    const cases: Array<[string, string]> = [
      ["text/html", "application/octet-stream"],
      ["image/svg+xml", "application/octet-stream"],
      ["application/javascript", "application/octet-stream"],
      ["text/csv", "text/csv"],
      ["image/png", "image/png"],
    ];
    for (const [uploaded, served] of cases) {
      const f = await client.files.create({
        file: await toFile(Buffer.from("<script>alert(1)</script>"), "x.bin", { type: uploaded }),
        purpose: "assistants",
      });
      const res = await fetch(`${baseURL}/files/${f.id}/content`, { headers: auth });
      expect(res.status, uploaded).toBe(200);
      expect(res.headers.get("content-type"), uploaded).toBe(served);
      expect(res.headers.get("x-content-type-options"), uploaded).toBe("nosniff");
      expect(res.headers.get("content-disposition"), uploaded).toMatch(/^attachment;/);
      expect(await res.text()).toBe("<script>alert(1)</script>");
    }
  });

  it("another project's file is a 404 everywhere, and never listed", async () => {
    const mine = await client.files.create({
      file: await toFile(Buffer.from("private"), "mine.txt"),
      purpose: "assistants",
    });
    const other = openaiClient(baseURL, (await t.createKey("proj-b")).secret);
    for (const call of [
      () => other.files.retrieve(mine.id),
      () => other.files.content(mine.id),
      () => other.files.delete(mine.id),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toEqual({
        message: `No such file: '${mine.id}'.`,
        type: "invalid_request_error",
        param: "file_id",
        code: "file_not_found",
      });
    }
    const listed: string[] = [];
    for await (const f of other.files.list()) listed.push(f.id);
    expect(listed).not.toContain(mine.id);
    expect((await client.files.retrieve(mine.id)).id).toBe(mine.id);
  });
});
