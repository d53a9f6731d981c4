/** A live progress line on stderr, only when stderr is a terminal, redrawn at most every 100 ms. */
export interface Progress {
  update(text: string): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  const t0 = performance.now();
  let last = 0;
  return {
    update(text) {
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      const line = `${((now - t0) / 1000).toFixed(1)}s ${text}`;
      stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 100) - 1)}`);
    },
    done() {
      stream.write("\r\x1b[2K");
    },
  };
}
