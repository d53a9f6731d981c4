/** Human formats shared by the summary table and the HTML report. */

export function formatBytes(n: number): string {
  if (n === 0) return "0 (unlimited)";
  for (const [size, unit] of [
    [1024 ** 3, "GiB"],
    [1024 ** 2, "MiB"],
    [1024, "KiB"],
  ] as const) {
    if (n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} B`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

const f = (v: unknown) => (typeof v === "number" ? formatMs(v) : "–");
/** A count or status as printed; `missing` when the figure is absent or not a plain value. */
const n = (v: unknown, missing: string) => (typeof v === "number" || typeof v === "string" ? String(v) : missing);

/** The one line of figures that matters most for each scenario. */
export function headline(id: string, figures: Record<string, unknown>): string {
  switch (id) {
    case "streaming":
      return `${n(figures.valid, "0")}/${n(figures.requests, "0")} valid · TTFT p50 ${f(figures.ttft_p50_ms)} p95 ${f(figures.ttft_p95_ms)} · inter-token p95 ${f(figures.itl_p95_ms)} · e2e p95 ${f(figures.e2e_p95_ms)}`;
    case "idle-timeout":
      return (
        `read timeout ${f(figures.read_timeout_ms)}: with heartbeats ${figures.live_complete ? "survived" : "cut"}` +
        (figures.control_cut === undefined
          ? ""
          : ` · without: ${figures.control_cut ? `cut after ${f(figures.control_silent_before_cut_ms)} silence` : "survived"}`)
      );
    case "body-limits":
      return `JSON ${n(figures.json_at_limit_status, "–")}/${n(figures.json_over_limit_status, "–")} · buffer ${n(figures.upload_below_buffer_status, "–")}/${n(figures.upload_above_buffer_status, "–")} · file ${n(figures.file_at_limit_status, "–")}/${n(figures.file_over_limit_status, "–")}`;
    case "files-load":
      return `${n(figures.round_trips_ok, "0")}/${n(figures.files, "0")} round trips · ${n(figures.sha_mismatches, "0")} SHA mismatches · upload p95 ${f(figures.upload_p95_ms)} · download p95 ${f(figures.download_p95_ms)}`;
    case "rate-sweep":
      return Object.keys(figures)
        .filter((k) => /^rate_[\d.]+_valid$/.test(k))
        .map(
          (k) =>
            `${k.split("_")[1]}/s: ${n(figures[k], "–")}/${n(figures[k.replace("_valid", "_requests")], "–")} valid`,
        )
        .join(" · ");
    case "revocation":
      return `${n(figures.accepted_before_delete, "0")} accepted before · ${n(figures.accepted_after_delete, "–")}/${n(figures.requests_after_delete, "–")} accepted after delete`;
    default:
      return "";
  }
}

/** Rows as left-aligned text columns; the last column is not padded. */
export function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  "));
}
