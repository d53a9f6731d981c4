/**
 * The hot path of an upstream stream: most chunks carry one content delta and nothing else. This
 * reads the text of such a chunk without parsing the whole JSON; any other chunk (role, tool
 * calls, finish reason, usage, error, unusual layout) returns undefined and is parsed in full.
 */
const MARK = '"delta":{"content":"';
const FINISH = '"finish_reason":';

export function contentOnly(data: string): string | undefined {
  const at = data.indexOf(MARK);
  if (at < 0 || data.indexOf(MARK, at + 1) >= 0) return undefined;
  const open = at + MARK.length - 1;
  let escaped = false;
  let close = -1;
  for (let i = open + 1; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 92) {
      // A backslash escapes the next character: skip it.
      escaped = true;
      i++;
    } else if (c === 34) {
      close = i;
      break;
    }
  }
  // The delta holds the content alone; outside string values quotes are never escaped, so these
  // markers cannot come from the text itself.
  if (close < 0 || data.charCodeAt(close + 1) !== 125) return undefined;
  // One choice, not finished: a second choice may finish in the same chunk.
  const finish = data.indexOf(FINISH);
  if (finish < 0 || !data.startsWith("null", finish + FINISH.length) || data.indexOf(FINISH, finish + 1) >= 0) return undefined;
  if (data.includes('"usage":{') || data.includes('"error"') || data.includes('"tool_calls"')) return undefined;
  return escaped ? (JSON.parse(data.slice(open, close + 1)) as string) : data.slice(open + 1, close);
}
