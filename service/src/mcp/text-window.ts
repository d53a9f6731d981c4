/**
 * A window of a file's bytes as text, for `read_file`: offsets are in bytes, and a window never
 * splits a UTF-8 character, so paging with `next_offset` returns every character exactly once.
 */

const isContinuation = (b: number) => (b & 0xc0) === 0x80;
/** Length of the sequence a lead byte starts (1 for ASCII or stray bytes). */
const sequenceLength = (b: number) => (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1);

export type TextWindow =
  | {
      ok: true;
      text: string;
      /** First byte returned. */ start: number;
      /** Byte after the last one returned. */ end: number;
    }
  | { ok: false; reason: string };

/**
 * Decodes `bytes`, read at `offset` of a file of `total` bytes, into whole characters: continuation
 * bytes at the start belong to the previous window, a character cut at the end to the next one.
 */
export function textWindow(bytes: Buffer, offset: number, total: number): TextWindow {
  let from = 0;
  if (offset > 0) while (from < Math.min(3, bytes.length) && isContinuation(bytes[from])) from++;
  let to = bytes.length;
  if (offset + bytes.length < total) {
    // Find the last lead byte; if its character runs past the window, leave it for the next one.
    let i = to - 1;
    while (i > from && to - i < 4 && isContinuation(bytes[i])) i--;
    if (i >= from && sequenceLength(bytes[i]) > to - i) to = i;
  }
  const slice = bytes.subarray(from, to);
  if (slice.includes(0)) return { ok: false, reason: "it is a binary file (it contains NUL bytes)" };
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(slice);
    return { ok: true, text, start: offset + from, end: offset + to };
  } catch {
    return { ok: false, reason: "it is not UTF-8 text" };
  }
}
