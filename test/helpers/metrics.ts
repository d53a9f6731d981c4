/** Scrapes a service's /metrics over HTTP and reads samples out of the parsed exposition. */
import parsePrometheusTextFormat, { type Sample } from "parse-prometheus-text-format";

const HISTOGRAM_TYPE = /^# TYPE (\S+) histogram$/gm;

export class Scrape {
  /** Metric name → its declared type (`counter`, `gauge`, `histogram`…). */
  readonly types = new Map<string, string>();
  private readonly samples = new Map<string, Sample[]>();

  constructor(text: string) {
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) this.types.set(name, type);
    // The parser folds all of a histogram's series into one, dropping their labels: read the
    // `_bucket`, `_sum` and `_count` lines of histograms as plain samples instead.
    const histograms = new Set([...text.matchAll(HISTOGRAM_TYPE)].map((m) => m[1]));
    const plain = text
      .split("\n")
      .filter((line) => !/^# (HELP|TYPE) /.test(line) || !histograms.has(line.split(" ")[2]))
      .join("\n");
    for (const family of parsePrometheusTextFormat(plain)) {
      this.samples.set(family.name, [...(this.samples.get(family.name) ?? []), ...family.metrics]);
    }
  }

  /** Every sample of `name` whose labels include `labels`. */
  all(name: string, labels: Record<string, string> = {}): Sample[] {
    return (this.samples.get(name) ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** The value of the one sample of `name` with `labels`; undefined when there is none. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const found = this.all(name, labels);
    if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
    return found.length ? Number(found[0].value) : undefined;
  }

  /** A histogram series: its count, sum and cumulative count per upper bound. */
  histogram(name: string, labels: Record<string, string>) {
    const buckets = Object.fromEntries(this.all(`${name}_bucket`, labels).map((s) => [s.labels!.le, Number(s.value)]));
    return { count: this.value(`${name}_count`, labels), sum: this.value(`${name}_sum`, labels), buckets };
  }
}

/** GET {origin}/metrics, parsed. */
export async function scrape(origin: string): Promise<Scrape> {
  const res = await fetch(`${origin}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  return new Scrape(await res.text());
}
