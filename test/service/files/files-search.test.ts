/**
 * Ranked retrieval over uploaded text files, the same in PGlite and PostgreSQL, and the offline
 * default chat agent answering from it with file ids.
 */
import { randomBytes } from "node:crypto";
import type OpenAI from "openai";
import { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBlobBackend, type Emulator } from "../../helpers/blob-emulators.js";
import { buildFilesApp, type FilesTestApp } from "../../helpers/files.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";
import { STORE_KINDS } from "../../helpers/store.js";

const MANUAL = `Resetting a password

To reset your password, open Settings, choose Security and press "Reset password". A link is sent by email.

Billing

Invoices are issued on the first day of each month.`;

const RECIPES = `Pancakes need flour, eggs, milk and a pinch of salt. Whisk until smooth and rest the batter.`;

describe.each(STORE_KINDS)("file search (%s)", (storeKind) => {
  let backend: Emulator;
  let t: FilesTestApp;
  let client: OpenAI;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    backend = await startBlobBackend("local");
    t = await buildFilesApp(storeKind, backend);
    client = openaiClient(await listen(t.app), (await t.createKey("proj-a")).secret);
    for (const [name, text] of [
      ["manual.md", MANUAL],
      ["recipes.txt", RECIPES],
    ]) {
      ids[name] = (
        await client.files.create({ file: await toFile(Buffer.from(text), name), purpose: "assistants" })
      ).id;
    }
    // Binary files are stored but not indexed.
    ids["blob.bin"] = (
      await client.files.create({ file: await toFile(randomBytes(4096), "blob.bin"), purpose: "assistants" })
    ).id;
  });
  afterAll(async () => {
    await t?.close();
    await backend?.stop();
  });

  it("ranks the file that answers the question first, with a snippet around the match", async () => {
    const hits = await t.app.files.search("proj-a", "How do I reset my password?");
    expect(hits[0]).toMatchObject({ fileId: ids["manual.md"], filename: "manual.md" });
    expect(hits[0].score).toBeGreaterThan(0);
    expect(hits[0].snippet).toMatch(/reset your password/i);
    expect(hits.map((h) => h.fileId)).not.toContain(ids["recipes.txt"]);
  });

  it("matches any word, stems, and respects the limit", async () => {
    const hits = await t.app.files.search("proj-a", "whisking eggs or invoices", 5);
    expect(new Set(hits.map((h) => h.fileId))).toEqual(new Set([ids["manual.md"], ids["recipes.txt"]]));
    expect(await t.app.files.search("proj-a", "whisking eggs or invoices", 1)).toHaveLength(1);
  });

  it("finds nothing for stop words, operators or another project", async () => {
    expect(await t.app.files.search("proj-a", "the and of")).toEqual([]);
    expect(await t.app.files.search("proj-a", `"' & | ! <-> :*`)).toEqual([]);
    expect(await t.app.files.search("proj-b", "password")).toEqual([]);
  });

  it("a deleted file is no longer found", async () => {
    const f = await client.files.create({
      file: await toFile(Buffer.from("Zeppelins float on hydrogen."), "z.txt"),
      purpose: "assistants",
    });
    expect((await t.app.files.search("proj-a", "zeppelin"))[0].fileId).toBe(f.id);
    await client.files.delete(f.id);
    expect(await t.app.files.search("proj-a", "zeppelin")).toEqual([]);
  });

  it("the offline default chat agent answers from the files and cites the file id", async () => {
    const models = await client.models.list();
    const chat = models.data.find((m) => m.id.endsWith("/chat:latest"));
    expect(chat).toBeDefined();
    const res = await client.chat.completions.create({
      model: chat!.id,
      messages: [{ role: "user", content: "how can I reset the password?" }],
    });
    const answer = res.choices[0].message.content ?? "";
    expect(answer).toContain(ids["manual.md"]);
    expect(answer).toMatch(/reset your password/i);
  });
});
