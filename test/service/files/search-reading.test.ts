/**
 * File search reads like a search engine: an English term finds its inflections and its phrasal
 * verb ("backup" finds "backed up", "back up" finds "backup"), passages and snippets start and end
 * on words (Japanese included), the same on both stores, through the files agent (official openai
 * client) and MCP `search_files` (MCP SDK client).
 */
import { readFileSync } from "node:fs";
import type OpenAI from "openai";
import { toFile } from "openai";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { bearer, firstText, streamableClient } from "../../helpers/mcp.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";
import { STORE_KINDS } from "../../helpers/store.js";
import { passages } from "../../../service/src/domain/files/text-index.js";

/** The backfill statement of migration 007, as the migration runs it. */
const BACKFILL = readFileSync(
  new URL("../../../service/src/store/migrations/007-phrasal-compounds.sql", import.meta.url),
  "utf8",
)
  .split(/;\s*$/m)
  .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
  .find((s) => s.startsWith("UPDATE"))!;

const OPS =
  "Operations handbook. The database is backed up every night at 02:00 to object storage. " +
  "Restore drills run monthly, and the on-call engineer signs off each drill in the runbook.";
const LOGIN = "Our single sign-on page shows the login form; accounts locked after five failures are unlocked by IT.";
/** A long Japanese paragraph (no spaces), so passages are cut inside it. */
const JA =
  "社内規程。" +
  "出張の経費精算は、帰着後十日以内に申請してください。".repeat(40) +
  "領収書の原本を添付すること。" +
  "年次有給休暇は入社六か月後に付与されます。".repeat(40);

const segmenter = new Intl.Segmenter("ja", { granularity: "word" });
/** Whether `part` (a snippet without its "…" marks) occurs in `doc` starting and ending on word boundaries. */
function onWordBoundaries(doc: string, part: string): boolean {
  const bounds = new Set([...segmenter.segment(doc)].map((s) => s.index).concat(doc.length));
  const flat = doc.replace(/\s+/g, " ");
  for (let at = flat.indexOf(part); at >= 0; at = flat.indexOf(part, at + 1)) {
    if (bounds.has(at) && bounds.has(at + part.length)) return true;
  }
  return false;
}
const pieces = (snippet: string) =>
  snippet
    .split(" … ")
    .map((p) => p.replace(/^… |…$| …$/g, "").trim())
    .filter(Boolean);

describe("passages", () => {
  it("cuts a long paragraph without spaces between words, never inside one", () => {
    const parts = passages(JA);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join("")).toBe(JA);
    for (const p of parts) expect(onWordBoundaries(JA, p)).toBe(true);
  });
});

describe.each(STORE_KINDS)("file search reads like a search engine (%s)", (kind) => {
  let t: TestApp;
  let client: OpenAI;
  let mcp: Client;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await buildTestApp(kind);
    const base = await listen(t.app);
    const { secret } = await t.createKey();
    client = openaiClient(base, secret);
    ({ client: mcp } = await streamableClient(`${base.replace(/\/v1$/, "")}/mcp`, bearer(secret)));
    for (const [name, text] of [
      ["ops.md", OPS],
      ["login.md", LOGIN],
      ["経費.txt", JA],
    ]) {
      ids[name] = (
        await client.files.create({ file: await toFile(Buffer.from(text), name), purpose: "assistants" })
      ).id;
    }
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
  });

  const search = (q: string) => t.app.files.search("default", q, 3);

  it("finds a phrasal verb by its compound noun, and the compound by the phrase", async () => {
    const hits = await search("backup schedule");
    expect(hits[0].fileId).toBe(ids["ops.md"]);
    expect(hits[0].snippet).toContain("backed up");
    expect((await search("how do I log in?"))[0].fileId).toBe(ids["login.md"]);
    expect((await search("sign-off"))[0].fileId).toBe(ids["ops.md"]);
  });

  it("still matches inflections", async () => {
    expect((await search("restoring backups"))[0].fileId).toBe(ids["ops.md"]);
    expect((await search("drilling"))[0].fileId).toBe(ids["ops.md"]);
  });

  it("gives English and Japanese snippets that start and end on words, around the match", async () => {
    const [en] = await search("restore drills");
    for (const p of pieces(en.snippet)) expect(onWordBoundaries(OPS, p), p).toBe(true);
    const [ja] = await search("領収書");
    expect(ja.fileId).toBe(ids["経費.txt"]);
    expect(ja.snippet).toContain("領収書");
    expect(ja.snippet.length).toBeLessThan(200);
    for (const p of pieces(ja.snippet)) expect(onWordBoundaries(JA, p), p).toBe(true);
  });

  it("the files agent and MCP search_files answer the same way", async () => {
    const c = await client.chat.completions.create({
      model: "agentport/chat:latest",
      messages: [{ role: "user", content: "When is the backup?" }],
    });
    expect(c.choices[0].message.content).toContain(ids["ops.md"]);
    expect(c.choices[0].message.content).toContain("backed up");
    const result = await mcp.callTool({ name: "search_files", arguments: { query: "backup" } });
    const json = JSON.parse(firstText(result));
    expect(json.results[0]).toMatchObject({ file_id: ids["ops.md"] });
    expect(json.results[0].snippet).toContain("backed up");
  });

  it("the migration gives passages indexed before it their compounds", async () => {
    await t.store.db.query("UPDATE file_chunks SET tsv = to_tsvector('english', content) WHERE file_id = $1", [
      ids["ops.md"],
    ]);
    expect(await search("backup")).toEqual([]);
    await t.store.db.query(BACKFILL);
    expect((await search("backup"))[0].fileId).toBe(ids["ops.md"]);
  });
});
