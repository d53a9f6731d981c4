/**
 * Ranked retrieval over a project's text files: passages of each file are indexed as tsvector
 * (English stemming) in the file's own transaction, and a question matches any of its words,
 * ranked by ts_rank; each file is represented by its best passage. Runs the same in PGlite
 * and PostgreSQL.
 */
import type { FileSearchHit } from "../agents/types.js";
import type { Queryable } from "../../store/db.js";

/** Target passage length in characters: long enough for context, short enough to cite. */
const PASSAGE_CHARS = 1200;
const INSERT_BATCH = 200;
const MAX_QUERY_TERMS = 64;

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
    // A long paragraph is cut at the last whitespace before the target length.
    let rest = para;
    while (rest.length > target) {
      const cut = rest.lastIndexOf(" ", target) > target / 2 ? rest.lastIndexOf(" ", target) : target;
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
      `INSERT INTO file_chunks (file_id, project_id, ord, content, tsv)
       SELECT $1, $2, t.ord, t.content, to_tsvector('english', t.content)
       FROM unnest($3::int[], $4::text[]) AS t(ord, content)`,
      [fileId, projectId, batch.map((_, j) => i + j), batch],
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

export async function searchText(db: Queryable, projectId: string, question: string, limit: number): Promise<FileSearchHit[]> {
  const query = anyWordQuery(question);
  if (!query) return [];
  const { rows } = await db.query<{ file_id: string; filename: string; score: number; snippet: string }>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $2) AS q),
     ranked AS (
       SELECT c.file_id, c.content, ts_rank(c.tsv, q.q) AS score,
              row_number() OVER (PARTITION BY c.file_id ORDER BY ts_rank(c.tsv, q.q) DESC, c.ord) AS rn
       FROM file_chunks c, q
       WHERE c.project_id = $1 AND c.tsv @@ q.q
     )
     SELECT r.file_id, f.filename, r.score,
            ts_headline('english', r.content, q.q, 'StartSel="", StopSel="", MaxWords=40, MinWords=15, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
     FROM ranked r JOIN files f ON f.id = r.file_id, q
     WHERE r.rn = 1
     ORDER BY r.score DESC, r.file_id
     LIMIT $3`,
    [projectId, query, limit],
  );
  return rows.map((r) => ({ fileId: r.file_id, filename: r.filename, score: Number(r.score), snippet: r.snippet.replace(/\s+/g, " ").trim() }));
}
