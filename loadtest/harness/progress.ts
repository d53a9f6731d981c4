/**
 * Progress on stderr. On a terminal: one line redrawn at most every 100 ms. Elsewhere (CI logs):
 * a plain line every few seconds, and at once when the text changes phase, so a log shows the run
 * advancing without a line per request.
 */
export interface Progress {
  update(text: string): void;
  done(): void;
}

/** Seconds between plain lines when stderr is not a terminal. */
export const PLAIN_EVERY_MS = 5_000;

export function createProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stderr,
  plainEveryMs = PLAIN_EVERY_MS,
): Progress {
  const t0 = performance.now();
  const stamp = (now: number, text: string) => `${((now - t0) / 1000).toFixed(1)}s ${text}`;
  if (!stream.isTTY) {
    let last = -Infinity;
    let lastPhase = "";
    return {
      update(text) {
        const now = performance.now();
        // The phase is the text before its first figure ("streaming 12/64" → "streaming").
        const phase = text.split(/\s\d/)[0];
        if (now - last < plainEveryMs && phase === lastPhase) return;
        last = now;
        lastPhase = phase;
        stream.write(`${stamp(now, text)}\n`);
      },
      done() {},
    };
  }
  let last = 0;
  return {
    update(text) {
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      stream.write(`\r\x1b[2K${stamp(now, text).slice(0, (stream.columns ?? 100) - 1)}`);
    },
    done() {
      stream.write("\r\x1b[2K");
    },
  };
}
