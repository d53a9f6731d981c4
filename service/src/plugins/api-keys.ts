/** The API-key domain service on the instance (`app.apiKeys`), started and stopped with the app. */
import fp from "fastify-plugin";
import { ApiKeys } from "../domain/api-keys.js";

export default fp(
  async (app) => {
    const keys = new ApiKeys(app.db);
    await keys.start();
    app.decorate("apiKeys", keys);
    app.addHook("onClose", () => keys.stop());
  },
  { name: "api-keys", dependencies: ["store"] },
);
