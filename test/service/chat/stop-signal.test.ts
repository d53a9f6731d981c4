/**
 * A chat request's stop as undici takes it: the Stopper itself, an EventEmitter that emits "abort"
 * once and says whether it has, for a client that leaves and for the shutdown deadline alike.
 * Driven through undici's own `request` against a server that never answers.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stopper } from "../../../service/src/routes/v1/chat/completions/stop-signal.js";

describe("Stopper as an upstream request's signal", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers nothing: only an abort ends a request to it.
    server = createServer(() => {});
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** How a request ended: "answered", or undici's error code. */
  const outcome = (pending: Promise<unknown>) =>
    pending.then(
      () => "answered",
      (err: Error & { code?: string }) => err.code,
    );
  const bounded = <T>(p: Promise<T>) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("not settled within 5 s")), 5_000)),
    ]);

  it("stop() aborts a request under way, and emits abort only once", async () => {
    const stopper = new Stopper(new AbortController().signal);
    let emitted = 0;
    stopper.on("abort", () => emitted++);
    const pending = outcome(request(url, { signal: stopper }));
    await new Promise((resolve) => server.once("request", resolve));
    stopper.stop();
    stopper.stop();
    expect(await bounded(pending)).toBe("UND_ERR_ABORTED");
    expect(stopper.aborted).toBe(true);
    expect(emitted).toBe(1);
  });

  it("the shutdown deadline stops every live request's stopper, and one made after it is stopped from the start", async () => {
    const deadline = new AbortController();
    const live = new Stopper(deadline.signal);
    const pending = outcome(request(url, { signal: live }));
    await new Promise((resolve) => server.once("request", resolve));
    deadline.abort();
    expect(await bounded(pending)).toBe("UND_ERR_ABORTED");

    const late = new Stopper(deadline.signal);
    expect(late.aborted).toBe(true);
    const refused = await outcome(request(url, { signal: late }));
    expect(refused).toBe("UND_ERR_ABORTED");
    expect(late.signal.aborted).toBe(true); // the AbortSignal form agrees
  });

  it("a released stopper is no longer stopped by the deadline", () => {
    const deadline = new AbortController();
    const done = new Stopper(deadline.signal);
    done.release();
    deadline.abort();
    expect(done.aborted).toBe(false);
  });
});
