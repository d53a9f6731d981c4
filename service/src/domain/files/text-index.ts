/**
 * Ranked retrieval over a project's text files: passages of each file are indexed as tsvector
 * (English stemming, plus phrasal verbs joined: "backed up" also indexes 'backup', see migration
 * 007) in the file's own transaction, and a question matches any of its words, ranked by ts_rank;
 * each file is represented by its best passage. Passages and snippets start and end on words. Scripts written without
 * spaces (Japanese, Chinese, Korean) are matched by character bigrams instead, scored by the
 * share of the question's bigrams a passage contains. Runs the same in PGlite and PostgreSQL.
 */
import type { FileSearchHit } from "../agents/types.js";
import type { Queryable } from "../../store/db.js";
import { cutAt, windowAround } from "./word-bounds.js";

/** Target passage length in characters: long enough for context, short enough to cite. */
const PASSAGE_CHARS = 1200;
const INSERT_BATCH = 200;
const MAX_QUERY_TERMS = 64;
const MAX_QUERY_GRAMS = 256;
/** Snippet length for a passage found by bigrams only (ts_headline cannot see words there). */
const GRAM_SNIPPET_CHARS = 160;
/** Particles migration 007 joins to the word before them ("back up" -> "backup"). */
const PARTICLE_SUFFIX = /^([a-z]{3,}?)(up|down|in|out|off|on|over|back)$/;
/** Runs of kana, CJK ideographs and Hangul; the same ranges as migration 003's backfill. */
const UNSPACED_RUN = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g;

/** Distinct character bigrams of the unspaced-script runs in `text` (a one-character run is its own gram). */
export function bigrams(text: string): string[] {
  const grams = new Set<string>();
  for (const [run] of text.toLowerCase().matchAll(UNSPACED_RUN)) {
    if (run.length === 1) grams.add(run);
    for (let i = 0; i + 1 < run.length; i++) grams.add(run.slice(i, i + 2));
  }
  return [...grams];
}

/** Splits text into passages at paragraph, then line, then word boundaries. */
export function passages(text: string, target = PASSAGE_CHARS): string[] {
  const out: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim()) out.push(current.trim());
    current = "";
  };
  for (const para of text.split(/\n\s*\n/)) {
    if (current && current.length + para.length > target) flush();
    if (para.length <= target) {
      current += (current ? "\n\n" : "") + para;
      continue;
    }
    // A long paragraph is cut at the last whitespace (or word boundary) before the target length.
    let rest = para;
    while (rest.length > target) {
      const cut = cutAt(rest, target);
      current += rest.slice(0, cut);
      flush();
      rest = rest.slice(cut);
    }
    current = rest;
  }
  flush();
  return out;
}

export async function indexText(tx: Queryable, projectId: string, fileId: string, text: string): Promise<number> {
  const parts = passages(text);
  for (let i = 0; i < parts.length; i += INSERT_BATCH) {
    const batch = parts.slice(i, i + INSERT_BATCH);
    await tx.query(
      `INSERT INTO file_chunks (file_id, project_id, ord, content, tsv, grams)
       SELECT $1, $2, t.ord, t.content, to_tsvector('english', t.content) || to_tsvector('english', phrasal_compounds(t.content)), ARRAY(SELECT json_array_elements_text(t.grams))
       FROM unnest($3::int[], $4::text[], $5::json[]) AS t(ord, content, grams)`,
      [fileId, projectId, batch.map((_, j) => i + j), batch, batch.map((p) => JSON.stringify(bigrams(p)))],
    );
  }
  return parts.length;
}

/** A question as "w1 or w2 or …" for websearch_to_tsquery: operators and quotes cannot get in. */
export function anyWordQuery(question: string): string {
  const words = question
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .split(" ")
    .filter((w) => w && w.toLowerCase() !== "or")
    .slice(0, MAX_QUERY_TERMS);
  return words.join(" or ");
}

/**
 * The question's compound words split back into the verb, for the snippet only: "backup" points
 * ts_headline at "backed" in "backed up" (matching on "back" alone would find every "come back").
 */
export function splitCompounds(question: string): string {
  const heads = question
    .toLowerCase()
    .split(/[^a-z]+/)
    .map((w) => PARTICLE_SUFFIX.exec(w)?.[1])
    .filter((w): w is string => Boolean(w));
  return [...new Set(heads)].slice(0, MAX_QUERY_TERMS).join(" or ");
}

/** A snippet around the first of the question's bigrams in a passage found by bigrams only. */
function gramSnippet(content: string, grams: string[]): string {
  const lower = content.toLowerCase();
  const at = Math.min(...grams.map((g) => lower.indexOf(g)).filter((i) => i >= 0));
  return windowAround(content, Number.isFinite(at) ? at : 0, GRAM_SNIPPET_CHARS);
}

/**
 * The most of a question a search reads: its terms and bigrams are cut to a few dozen anyway, and
 * building them from a whole 5 MB question held the event loop for seconds.
 */
export const MAX_QUESTION_CHARS = 4096;

export async function searchText(
  db: Queryable,
  projectId: string,
  whole: string,
  limit: number,
): Promise<FileSearchHit[]> {
  const question = whole.slice(0, MAX_QUESTION_CHARS);
  const query = anyWordQuery(question);
  const grams = bigrams(question).slice(0, MAX_QUERY_GRAMS);
  if (!query && grams.length === 0) return [];
  const { rows } = await db.query<{
    file_id: string;
    filename: string;
    score: number;
    content: string;
    worded: boolean;
    snippet: string;
  }>(
    `WITH q AS (
       SELECT websearch_to_tsquery('english', $2) || websearch_to_tsquery('english', replace(phrasal_compounds($5), ' ', ' or ')) AS q,
              websearch_to_tsquery('english', $6) AS heads
     ),
     scored AS (
       SELECT c.file_id, c.ord, ts_rank(c.tsv, q.q) AS word_rank,
              (SELECT count(*) FROM unnest($4::text[]) AS g WHERE g = ANY (c.grams))::real / greatest(cardinality($4::text[]), 1) AS gram_share
       FROM file_chunks c, q
       WHERE c.project_id = $1 AND (c.tsv @@ q.q OR c.grams && $4::text[])
     ),
     ranked AS (
       SELECT s.*, s.word_rank + s.gram_share AS score,
              row_number() OVER (PARTITION BY s.file_id ORDER BY s.word_rank + s.gram_share DESC, s.ord) AS rn
       FROM scored s
     ),
     -- The passages' text is read for the returned ones only: carried through the sorts it made
     -- them spill to disk. ts_rank is 0 exactly when no word matched (found by bigrams alone).
     top AS (
       SELECT r.file_id, r.ord, r.score, r.word_rank > 0 AS worded
       FROM ranked r
       WHERE r.rn = 1
       ORDER BY r.score DESC, r.file_id
       LIMIT $3
     )
     SELECT top.file_id, f.filename, top.score, top.worded, c.content, ts_headline('english', c.content, q.q || q.heads, 'StartSel="", StopSel="", MaxWords=40, MinWords=15, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
     FROM top JOIN files f ON f.id = top.file_id JOIN file_chunks c ON c.file_id = top.file_id AND c.ord = top.ord, q
     ORDER BY top.score DESC, top.file_id`,
    // Compounds are joined from the query's words (at most MAX_QUERY_TERMS), not the whole question.
    [projectId, query, limit, grams, query.replaceAll(" or ", " "), splitCompounds(question)],
  );
  return rows.map((r) => ({
    fileId: r.file_id,
    filename: r.filename,
    score: Number(r.score),
    snippet: (r.worded ? r.snippet : gramSnippet(r.content, grams)).replace(/\s+/g, " ").trim(),
  }));
}
