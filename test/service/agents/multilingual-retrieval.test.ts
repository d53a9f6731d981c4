/**
 * The files agent finds a file by a word it contains in Japanese (no spaces between words),
 * English and a mix of both, on both stores, through the API with the official openai client.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { toFile } from "openai";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { STORE_KINDS } from "../../helpers/store.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";
import { bigrams } from "../../../service/src/domain/files/text-index.js";

/** The backfill statement of the migration that added bigrams, as the migration runs it. */
const BACKFILL = readFileSync(
  new URL("../../../service/src/store/migrations/003-chunk-bigrams.sql", import.meta.url),
  "utf8",
)
  .split(/;\s*$/m)
  .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
  .find((s) => s.startsWith("UPDATE"))!;

const FILES = {
  ja: ["経費規程.txt", "出張の経費精算は、帰着後十日以内に申請してください。領収書の原本を添付すること。"],
  jaOther: ["休暇.txt", "年次有給休暇は入社六か月後に付与されます。"],
  en: ["refunds.md", "Refunds are issued within fourteen days of the return being received."],
  enOther: ["shipping.md", "Parcels ship from the warehouse every weekday morning."],
  mixed: ["onboarding.md", "Laptop setup: 社内ネットワークにはVPNで接続します. Ask IT for a hardware token."],
} as const;

describe.each(STORE_KINDS)("the files agent reads Japanese, English and mixed files (%s)", (kind) => {
  let t: TestApp;
  let client: OpenAI;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await buildTestApp(kind);
    client = openaiClient(await listen(t.app), (await t.createKey()).secret);
    for (const [k, [name, text]] of Object.entries(FILES)) {
      ids[k] = (await client.files.create({ file: await toFile(Buffer.from(text), name), purpose: "assistants" })).id;
    }
  });
  afterAll(() => t.close());

  async function ask(question: string): Promise<string> {
    const c = await client.chat.completions.create({
      model: "agentport/chat:latest",
      messages: [{ role: "user", content: question }],
    });
    return c.choices[0].message.content ?? "";
  }
  /** The file ids cited in an answer, in citation order. */
  const cited = (answer: string) => [...answer.matchAll(/\((file-[^)]+)\)/g)].map((m) => m[1]);

  it("finds a Japanese file by a word inside a sentence, and ranks it first", async () => {
    const answer = await ask("領収書は必要ですか？");
    expect(cited(answer)[0]).toBe(ids.ja);
    expect(cited(answer)).not.toContain(ids.en);
  });

  it("tells two Japanese files apart by the word asked about", async () => {
    expect(cited(await ask("有給休暇はいつ付与されますか"))[0]).toBe(ids.jaOther);
    expect(cited(await ask("出張の精算"))[0]).toBe(ids.ja);
  });

  it("keeps English retrieval by stemmed words, without matching unrelated files", async () => {
    const answers = cited(await ask("how are refunds issued?"));
    expect(answers[0]).toBe(ids.en);
    expect(answers).not.toContain(ids.enOther);
    expect(answers).not.toContain(ids.ja);
  });

  it("finds a mixed file by its Japanese part and by its English part", async () => {
    expect(cited(await ask("ネットワークの接続方法"))[0]).toBe(ids.mixed);
    expect(cited(await ask("hardware token"))[0]).toBe(ids.mixed);
  });

  it("gives passages indexed before the bigrams existed the same bigrams in the migration", async () => {
    const before = await t.store.db.query<{ content: string; grams: string[] }>(
      "SELECT content, grams FROM file_chunks ORDER BY file_id, ord",
    );
    await t.store.db.query("UPDATE file_chunks SET grams = '{}'");
    await t.store.db.query(BACKFILL);
    const after = await t.store.db.query<{ content: string; grams: string[] }>(
      "SELECT content, grams FROM file_chunks ORDER BY file_id, ord",
    );
    expect(after.rows.map((r) => [...r.grams].sort())).toEqual(before.rows.map((r) => bigrams(r.content).sort()));
    expect(after.rows.some((r) => r.grams.includes("領収"))).toBe(true);
    expect(cited(await ask("領収書"))[0]).toBe(ids.ja);
  });

  it("finds nothing for a Japanese word no file contains", async () => {
    expect(cited(await ask("株価"))).toEqual([]);
  });
});
