/**
 * Word boundaries for passages and snippets. Intl.Segmenter (built into Node, ICU dictionaries)
 * finds words in scripts written without spaces too, which a whitespace rule cannot.
 */

const words = new Intl.Segmenter(undefined, { granularity: "word" });

/** Start offsets of the segments of `text` (words, spaces and punctuation alike), in order. */
function breaks(text: string): number[] {
  return [...words.segment(text)].map((s) => s.index);
}

/**
 * Where to cut `text` so the first part is at most `limit` characters and ends on a word boundary:
 * the last whitespace past half the limit, else the last word boundary, else `limit` (a single
 * "word" longer than the limit, such as a long URL, has no better place).
 */
export function cutAt(text: string, limit: number): number {
  const space = text.lastIndexOf(" ", limit);
  if (space > limit / 2) return space;
  const head = text.slice(0, limit + 1);
  const last = breaks(head)
    .filter((i) => i > 0 && i <= limit)
    .pop();
  return last ?? limit;
}

/**
 * About `size` characters of `text` around offset `at`, starting and ending on word boundaries,
 * with "…" where text was left out.
 */
export function windowAround(text: string, at: number, size: number): string {
  if (text.length <= size) return text;
  const from = Math.max(0, Math.min(at - Math.floor(size / 3), text.length - size));
  const bounds = [...breaks(text), text.length];
  const start = bounds.filter((i) => i <= from).pop() ?? 0;
  const within = bounds.filter((i) => i > start && i <= start + size).pop();
  const end = within ?? bounds.find((i) => i > start) ?? text.length;
  return (start > 0 ? "… " : "") + text.slice(start, end).trim() + (end < text.length ? " …" : "");
}
