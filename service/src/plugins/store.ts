/** Opens the metadata store (or adopts one a test built) and closes it with the app. */
import fp from "fastify-plugin";
import type { Db } from "../store/db.js";
import { openStore, pgliteDirFor } from "../store/open.js";
import { tracedDb } from "../telemetry/traced-db.js";

export default fp<{ db?: Db }>(
  async (app, opts) => {
    const owned = !opts.db;
    const db =
      opts.db ??
      (await openStore({
        databaseUrl: app.config.databaseUrl,
        databaseSchema: app.config.databaseSchema,
        timeouts: app.config.databaseTimeouts,
        pgliteDir: pgliteDirFor(app.config.dataDir),
        log: (msg) => app.log.warn(msg),
        info: (msg) => app.log.info(msg),
      }));
    app.decorate("db", tracedDb(db));
    if (owned) app.addHook("onClose", () => db.close());
  },
  { name: "store" },
);
