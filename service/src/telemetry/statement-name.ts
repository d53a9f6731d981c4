/**
 * A query's name for its span: its verb and first table (`SELECT api_keys`), as the database
 * semantic conventions' query summary. Never the SQL text: values a query inlines would leak,
 * and the text is long. The store's statements are a fixed set, so names are cached by text.
 */
const names = new Map<string, string>();
const MAX_CACHED = 1000;

/** The first word: a query's verb (`WITH` for one that starts with a common table expression). */
const VERB = /^\s*(\w+)/;
const TABLE = /\b(?:FROM|INTO|UPDATE|TABLE|JOIN)\s+("?[\w.]+"?)/i;

export function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    const verb = (VERB.exec(sql)?.[1] ?? "QUERY").toUpperCase();
    const table = TABLE.exec(sql)?.[1]?.replaceAll('"', "");
    name = table ? `${verb} ${table}` : verb;
    if (names.size < MAX_CACHED) names.set(sql, name);
  }
  return name;
}
