/** Building a files test app on a given blob backend, and looking at what it left behind. */
import { setTimeout as sleep } from "node:timers/promises";
import { createBlobStore } from "../../service/src/blobs/create.js";
import { LocalBlobStore } from "../../service/src/blobs/local.js";
import { loadConfig } from "../../service/src/config.js";
import { buildTestApp, type TestApp } from "./app.js";
import { FailingBlobStore } from "./failing-blob-store.js";
import type { StoreKind } from "./store.js";
import type { Emulator } from "./blob-emulators.js";

let n = 0;

export interface FilesTestApp extends TestApp {
  blobs: FailingBlobStore;
  /** Blobs in the store, complete or (local) partial; file rows; pending deletions. */
  leftovers(): Promise<{ blobs: string[]; partials: string[]; rows: number; pending: number }>;
}

export async function buildFilesApp(
  kind: StoreKind,
  backend: Emulator,
  env: Record<string, string> = {},
): Promise<FilesTestApp> {
  const blobEnv = backend.env(`files-${process.pid}-${++n}`);
  const config = loadConfig({ DATA_DIR: "/nonexistent", JWT_SECRET: "x".repeat(64), ...blobEnv });
  const blobs = new FailingBlobStore(await createBlobStore(config.blob));
  const t = await buildTestApp(kind, { ...blobEnv, ...env }, { blobs });
  return {
    ...t,
    blobs,
    async leftovers() {
      const rows = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM files");
      const pending = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM blob_deletions");
      return {
        blobs: await blobs.list(),
        partials: blobs.inner instanceof LocalBlobStore ? await blobs.inner.partials() : [],
        rows: rows.rows[0].n,
        pending: pending.rows[0].n,
      };
    },
    async close() {
      await t.close();
      await blobs.close();
    },
  };
}

/** Waits (bounded) until `check` holds: for work the server finishes after the client saw the end. */
export async function eventually<T>(check: () => Promise<T>, ok: (v: T) => boolean, tries = 200): Promise<T> {
  let v = await check();
  for (let i = 0; i < tries && !ok(v); i++) {
    await sleep(25);
    v = await check();
  }
  return v;
}
