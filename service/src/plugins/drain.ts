/**
 * Draining on shutdown. Once `app.close()` starts, a request that still arrives on an open
 * connection gets a 503 in the OpenAI envelope with `Connection: close` (Fastify's own answer is
 * not in the envelope), and connections are closed as soon as they fall idle — a kept-alive
 * client would otherwise hold the process until the keep-alive timeout or the grace period,
 * long after the last stream ended.
 */
import fp from "fastify-plugin";
import { unavailable } from "../errors.js";

const IDLE_SWEEP_MS = 100;

export default fp(
  async (app) => {
    let draining = false;
    let sweeper: NodeJS.Timeout | undefined;
    app.addHook("preClose", (done) => {
      draining = true;
      // Node closes the connections idle at server.close() once; these are the ones that fall
      // idle afterwards, as in-flight responses and streams finish.
      sweeper = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      sweeper.unref();
      done();
    });
    app.addHook("onClose", (_app, done) => {
      clearInterval(sweeper);
      done();
    });
    app.addHook("onRequest", (_request, reply, done) => {
      if (!draining) return done();
      reply.header("connection", "close");
      done(unavailable("The server is shutting down; retry the request."));
    });
  },
  { name: "drain" },
);
