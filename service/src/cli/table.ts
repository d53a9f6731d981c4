/** Fixed-width text tables (the CLI's and the bench's output): text columns left, figures right. */
export function table(header: string[], rows: string[][], textColumns = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
