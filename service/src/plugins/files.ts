/**
 * The files module on the instance (`app.files`): opens the configured blob store (or adopts one a
 * test built), sweeps pending blob deletions periodically, and offers `files.search` to the agents.
 */
import fp from "fastify-plugin";
import type { BlobStore } from "../blobs/blob-store.js";
import { createBlobStore } from "../blobs/create.js";
import { Files } from "../domain/files/files.js";

const SWEEP_INTERVAL_MS = 60_000;

export interface FilesPluginOptions {
  /** A blob store the caller built (tests); otherwise the configured one. */
  blobs?: BlobStore;
}

export default fp<FilesPluginOptions>(
  async (app, opts) => {
    const blobs = opts.blobs ?? (await createBlobStore(app.config.blob));
    await blobs.init();
    const files = new Files({ db: app.db, blobs, maxBytes: app.config.fileMaxBytes, log: app.log });
    app.decorate("files", files);

    const sweep = () => {
      void files.deletions.sweep().then(
        ({ failed }) => failed && app.log.warn({ failed }, "blob deletions still pending"),
        (err) => app.log.warn({ err }, "blob deletion sweep failed"),
      );
      void blobs.sweepPartials?.().then(
        (removed) => removed && app.log.info({ removed }, "removed partial blobs left by interrupted uploads"),
        (err) => app.log.warn({ err }, "partial blob sweep failed"),
      );
    };
    // The first sweep picks up what a previous process left (uploads cut by a crash).
    const timer = setInterval(sweep, SWEEP_INTERVAL_MS).unref();
    app.addHook("onReady", async () => sweep());
    app.addHook("onClose", async () => {
      clearInterval(timer);
      if (!opts.blobs) await blobs.close();
    });
  },
  { name: "files", dependencies: ["store"] },
);
