/**
 * An upstream answer relayed under our name: its JSON object's members other than the head the
 * caller writes itself (id, object, created, model), byte for byte and in the upstream's order.
 * A walk over the top level, not a parse: the head comes first in every upstream we know of and is
 * short, so a chunk costs a few dozen characters of scanning, and the rest is one slice.
 */
const WHOLE_HEAD = 15;
/** A bit per head member, 0 for any other key. */
const headBit = (key: string) =>
  key === "id" ? 1 : key === "object" ? 2 : key === "created" ? 4 : key === "model" ? 8 : 0;

/** A head key anywhere in a text (nested ones too: then the walk goes on, which is only slower). */
const HEAD_KEY = /"(?:id|object|created|model)"\s*:/;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Index of the quote closing the string that opens at `open`; -1 if it never closes. */
function stringClose(s: string, open: number): number {
  let q = s.indexOf('"', open + 1);
  while (q > 0) {
    let slashes = 0;
    while (s.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q;
    q = s.indexOf('"', q + 1);
  }
  return -1;
}

/** Index just after the value that starts at `i`; -1 if it does not end. */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 34) {
    const close = stringClose(s, i);
    return close < 0 ? -1 : close + 1;
  }
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === 34) {
        j = stringClose(s, j);
        if (j < 0) return -1;
      } else if (d === 123 || d === 91) depth++;
      else if ((d === 125 || d === 93) && --depth === 0) return j + 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the next separator.
  let j = i;
  for (
    let d = s.charCodeAt(j);
    j < s.length && d !== 44 && d !== 125 && d !== 93 && !isSpace(d);
    d = s.charCodeAt(++j)
  );
  return j > i ? j : -1;
}

/**
 * The members after the head, joined as they were ("" when there are none); undefined when the
 * text is not a JSON object this walk can read (the caller then treats it as a broken answer).
 */
export function membersAfterHead(json: string): string | undefined {
  return walk(json, undefined);
}

/**
 * A stream's chunks, parsed and cut after their head. Chunks all start with the same head (OpenAI's
 * id, object, created and model repeat on every chunk), so a chunk that begins with the text the
 * previous walk found before its other members is read from there: the same checks on the rest,
 * without walking the head again, and only the rest parsed — the head's text was parsed whole
 * before, and nothing reads it. The walk was ~15 % of a relayed stream's own CPU and the parse of
 * the head half of the rest (a head is most of a small chunk).
 */
export class StreamChunks {
  /**
   * The text before the other members of the last walked chunk the whole head led ("" before
   * one). Only ever a shortcut: a chunk is read from it only when it starts with it.
   */
  head = "";
  /** The last read chunk's members after its head, as `membersAfterHead` gives them. */
  members: string | undefined;

  /**
   * Parses one chunk (its head members left out when it shares the last one's head) and keeps its
   * members after the head in `members`, undefined when the walk cannot read it. Throws
   * SyntaxError when the chunk is not JSON, as JSON.parse does.
   */
  read(json: string): unknown {
    const head = this.head;
    if (head !== "" && json.startsWith(head)) {
      const i = skipSpace(json, head.length);
      const rest = restAfterHead(json, i, json.lastIndexOf("}"));
      // No member after the head's comma: not JSON, which the whole parse below says.
      if (rest !== null && rest !== undefined) {
        // With the head's members complete and a comma after them, the chunk is JSON exactly when
        // an object of what follows is (one without its closing brace after the head is not).
        const parsed: unknown = JSON.parse("{" + json.slice(i));
        this.members = rest;
        return parsed;
      }
    }
    const parsed: unknown = JSON.parse(json);
    // JSON that is not an object the walk refuses itself.
    this.members = walk(json, this);
    return parsed;
  }
}

/**
 * What follows a whole head ending at `i`: the rest as it is, undefined if it does not start as a
 * member does, null when a head key comes again (then only a walk can drop it).
 */
function restAfterHead(json: string, i: number, end: number): string | undefined | null {
  if (HEAD_KEY.test(json.slice(i, end))) return null;
  if (json.charCodeAt(i) !== 34) return undefined;
  return json.slice(i, end).trimEnd();
}

function walk(json: string, seenHead: StreamChunks | undefined): string | undefined {
  let i = skipSpace(json, 0);
  const end = json.lastIndexOf("}");
  if (json.charCodeAt(i) !== 123 || end < i) return undefined;
  let kept = "";
  let seen = 0;
  i = skipSpace(json, i + 1);
  if (i === end) return kept;
  for (;;) {
    if (i >= end || json.charCodeAt(i) !== 34) return undefined;
    const keyClose = stringClose(json, i);
    if (keyClose < 0) return undefined;
    const colon = skipSpace(json, keyClose + 1);
    if (json.charCodeAt(colon) !== 58) return undefined;
    const after = valueEnd(json, skipSpace(json, colon + 1));
    if (after < 0) return undefined;
    const next = skipSpace(json, after);
    if (next !== end && json.charCodeAt(next) !== 44) return undefined;
    const head = headBit(json.slice(i + 1, keyClose));
    if (head === 0) kept += (kept ? "," : "") + json.slice(i, after);
    else seen |= head;
    if (next === end) return kept;
    i = skipSpace(json, next + 1);
    if (seen === WHOLE_HEAD) {
      // The whole head is behind us and none of its keys comes again: what follows is kept as it
      // is. A repeated one (a later "model" would override ours for the client) is walked past.
      const rest = restAfterHead(json, i, end);
      if (rest === undefined) return undefined;
      if (rest !== null) {
        if (seenHead && kept === "") seenHead.head = json.slice(0, i);
        return kept ? kept + "," + rest : rest;
      }
    }
  }
}
