-- Full-text search with the English configuration cannot find words in scripts written
-- without spaces (Japanese, Chinese, Korean): a whole run of such characters is one token.
-- Each passage also keeps the character bigrams of those runs; a question's bigrams are
-- matched against them with the same SQL in PGlite and PostgreSQL (no extension needed).
ALTER TABLE file_chunks ADD COLUMN grams text[] NOT NULL DEFAULT '{}';

CREATE INDEX file_chunks_grams ON file_chunks USING gin (grams);

-- Passages indexed before this migration get their bigrams here (same rule as bigrams() in
-- text-index.ts: a run of one character is its own gram).
UPDATE file_chunks c SET grams = coalesce((
  SELECT array_agg(DISTINCT substr(m[1], i, 2))
  FROM regexp_matches(lower(c.content), '([぀-ヿ㐀-鿿가-힯豈-﫿]+)', 'g') AS m,
       generate_series(1, greatest(length(m[1]) - 1, 1)) AS i
), '{}');
