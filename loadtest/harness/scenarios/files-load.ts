/**
 * Files under load: concurrent upload → metadata → download (SHA-256) → listing → delete →
 * gone, while a lister pages through the project's files; the listing never duplicates,
 * always ends, and returns to its starting point.
 */
import { FilesApi } from "../files-api.js";
import { runPool } from "../pool.js";
import { summarize, summaryFigures } from "../stats.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

const KiB = 1024;

export const filesLoadScenario: Scenario = {
  id: "files-load",
  title: "Files under load: integrity and listing consistency",
  async run(ctx): Promise<ScenarioOutcome> {
    const { budget, target } = ctx;
    const files = new FilesApi(ctx.http, target.baseUrl, target.key);
    const initial = await files.listAll();
    const lat: Record<string, number[]> = { upload: [], download: [], delete: [] };
    const problems: string[] = [];
    const counts = { ok: 0, shaMismatch: 0, failed: 0, notListed: 0, notGone: 0 };
    const note = (p: string) => problems.length < 5 && problems.push(p);

    let running = true;
    const lister = (async () => {
      const stats = { listings: 0, duplicates: 0, incomplete: 0 };
      while (running) {
        const l = await files.listAll();
        stats.listings++;
        stats.duplicates += l.duplicates;
        if (!l.complete) stats.incomplete++;
      }
      return stats;
    })();

    const { started } = await runPool(budget.files, budget.fileConcurrency, budget.deadline, async (i) => {
      const size = KiB + Math.floor(Math.random() * 511 * KiB);
      const up = await files.upload(size, `load-${i}.bin`);
      lat.upload.push(up.latencyMs);
      ctx.recorder.add({
        scenario: "files-load",
        op: "files.upload",
        startedAt: up.startedAt,
        latencyMs: up.latencyMs,
        ok: up.status === 200,
      });
      const id = (up.body as { id?: string } | undefined)?.id;
      if (up.status !== 200 || !id) {
        counts.failed++;
        note(`upload #${i}: status ${up.status} ${up.error ?? up.text.slice(0, 80)}`);
        return;
      }
      const meta = await files.meta(id);
      const t0 = performance.now();
      const down = await files.contentSha256(id);
      lat.download.push(performance.now() - t0);
      ctx.recorder.add({
        scenario: "files-load",
        op: "files.download",
        startedAt: t0,
        latencyMs: performance.now() - t0,
        ok: down.status === 200,
      });
      if (down.sha256 !== up.sha256 || down.bytes !== size || (meta.body as { bytes?: number })?.bytes !== size) {
        counts.shaMismatch++;
        note(
          `${id}: sent ${size} B, stored ${(meta.body as { bytes?: number })?.bytes} B, got ${down.bytes} B back, sha ${down.sha256 === up.sha256 ? "equal" : "differs"}`,
        );
      }
      const listed = await files.listAll();
      if (!listed.ids.includes(id)) {
        counts.notListed++;
        note(`${id} missing from the listing after its upload`);
      }
      const t1 = performance.now();
      const del = await files.delete(id);
      lat.delete.push(performance.now() - t1);
      ctx.recorder.add({
        scenario: "files-load",
        op: "files.delete",
        startedAt: t1,
        latencyMs: performance.now() - t1,
        ok: del.status === 200,
      });
      const [gone, goneContent] = await Promise.all([files.meta(id), files.contentSha256(id)]);
      if (del.status !== 200 || (del.body as { deleted?: boolean })?.deleted !== true) {
        counts.failed++;
        note(`delete ${id}: status ${del.status}`);
      } else if (gone.status !== 404 || goneContent.status !== 404) {
        counts.notGone++;
        note(`${id} still answers after delete (${gone.status}/${goneContent.status})`);
      } else counts.ok++;
      ctx.progress(`files-load ${counts.ok}/${budget.files} round trips`);
    });
    running = false;
    const listing = await lister;
    const final = await files.listAll();
    const back =
      final.complete && final.ids.length === initial.ids.length && final.ids.every((id) => initial.ids.includes(id));

    const slowest = Math.max(...Object.values(lat).map((v) => summarize(v).p95 ?? 0));
    const checks: Check[] = [
      {
        name: "every round trip succeeded",
        ok: counts.ok === started && started > 0,
        detail: `${counts.ok}/${started}${problems.length ? `; ${problems.join(" | ")}` : ""}`,
      },
      {
        name: "downloads match uploads (SHA-256, size)",
        ok: counts.shaMismatch === 0,
        detail: `${counts.shaMismatch} mismatches`,
      },
      {
        name: "each new file is listed after its upload",
        ok: counts.notListed === 0,
        detail: `${counts.notListed} missing`,
      },
      {
        name: "deleted files answer 404 (metadata and content)",
        ok: counts.notGone === 0,
        detail: `${counts.notGone} still present`,
      },
      {
        name: "concurrent listings complete, without duplicates",
        ok: listing.duplicates === 0 && listing.incomplete === 0,
        detail: `${listing.listings} listings, ${listing.duplicates} duplicates, ${listing.incomplete} incomplete`,
      },
      {
        name: "listing back to its starting point",
        ok: back,
        detail: `${initial.ids.length} → ${final.ids.length} files`,
      },
      {
        name: `p95 of upload, download and delete <= ${budget.requestP95Ms} ms`,
        ok: slowest <= budget.requestP95Ms,
        detail: `slowest p95 ${Math.round(slowest)} ms`,
      },
      {
        name: "all planned files ran within the time budget",
        ok: started === budget.files,
        detail: `${started}/${budget.files}`,
      },
    ];
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures: {
        files: started,
        round_trips_ok: counts.ok,
        sha_mismatches: counts.shaMismatch,
        listings: listing.listings,
        ...summaryFigures("upload", summarize(lat.upload)),
        ...summaryFigures("download", summarize(lat.download)),
        ...summaryFigures("delete", summarize(lat.delete)),
      },
    };
  },
};
