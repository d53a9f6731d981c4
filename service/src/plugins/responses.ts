/**
 * Stored responses (`app.responses`): the store, hiding responses older than the retention
 * (RESPONSES_RETENTION_DAYS), and the periodic sweep that removes them from the table (counted in
 * agentport_responses_expired_removed_total and agentport_responses_sweep_failures_total).
 */
import fp from "fastify-plugin";
import { ResponseStore } from "../domain/responses/response-store.js";
import { DEFAULT_SWEEP, RetentionSweep } from "../domain/responses/retention-sweep.js";

export default fp(
  async (app) => {
    const retentionDays = app.config.responsesRetentionDays;
    const store = new ResponseStore(app.db, { retentionDays, chainMaxBytes: app.config.responsesChainMaxBytes });
    app.decorate("responses", store);
    if (retentionDays === 0) return; // kept forever: nothing to sweep
    const sweep = new RetentionSweep(store, app.log, DEFAULT_SWEEP, app.metrics.responsesSweep);
    sweep.start();
    // Registered after the store, so this runs before it closes.
    app.addHook("onClose", () => sweep.stop());
  },
  { name: "responses", dependencies: ["store", "metrics"] },
);
