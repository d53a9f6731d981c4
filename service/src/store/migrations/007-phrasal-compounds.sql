-- English stemming (the 'english' configuration's Snowball stemmer) already matches inflections
-- ("backups", "backing" -> "backup", "back"), but not a phrasal verb against its compound noun:
-- "backed up" is the lexemes 'back' and a stop word, "backup" is 'backup'. For each word followed
-- by a particle, a passage's tsvector also gets the joined lexeme (stem of the word + particle:
-- "backed up" -> 'backup', "logged in" -> 'login', "set-up" -> 'setup'); a question gets the
-- same, so "back up" finds "backup" too. Stop words ("it down") are not joined.
CREATE FUNCTION phrasal_compounds(body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN (
  SELECT coalesce(string_agg(s.stem[1] || substring(p.next from '^[a-z]+'), ' ' ORDER BY p.n), '')
  FROM (SELECT t.n, lower(t.w) AS w, lower(lead(t.w) OVER (ORDER BY t.n)) AS next
        FROM regexp_split_to_table(body, '[[:space:]-]+') WITH ORDINALITY AS t(w, n)) AS p,
       LATERAL (SELECT ts_lexize('english_stem', p.w) AS stem) AS s
  WHERE p.next ~ '^(up|down|in|out|off|on|over|back)([^[:alnum:]]|$)' AND p.w ~ '^[a-z]+$' AND cardinality(s.stem) > 0
);

-- Passages indexed before this migration get their compounds here.
UPDATE file_chunks SET tsv = tsv || to_tsvector('english', phrasal_compounds(content)) WHERE phrasal_compounds(content) <> '';
