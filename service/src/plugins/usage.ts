/** Completions usage (`app.usage`): summed per key, model and minute, written every few seconds. */
import fp from "fastify-plugin";
import { UsageMeter } from "../domain/usage/usage-meter.js";

declare module "fastify" {
  interface FastifyInstance {
    usage: UsageMeter;
  }
}

export default fp(
  async (app) => {
    const meter = new UsageMeter(app.db, app.log);
    meter.start();
    app.decorate("usage", meter);
    // Registered after the store, so this runs before it closes: the last sums are written.
    app.addHook("onClose", () => meter.stop());
  },
  { name: "usage", dependencies: ["store"] },
);
