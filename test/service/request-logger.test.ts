import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { requestLoggerFactory } from "../../service/src/http/request-logger.js";

function rootLogger(level = "info") {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { root: pino({ level }, sink), lines };
}

describe("a request's logger, made on first use", () => {
  it("makes no pino child for a request that logs nothing, and one for a request that logs", () => {
    const { root } = rootLogger();
    const child = vi.spyOn(root, "child");
    const quiet = requestLoggerFactory(root, { reqId: "req_1" }, {});
    expect(quiet.level).toBe("info");
    expect((quiet as unknown as pino.Logger).isLevelEnabled("debug")).toBe(false);
    expect(child).not.toHaveBeenCalled();
    const busy = requestLoggerFactory(root, { reqId: "req_2" }, {});
    busy.warn({ detail: 1 }, "first");
    busy.info("second");
    expect(child).toHaveBeenCalledTimes(1);
  });

  it("writes the lines a pino child would: the request's bindings, level and message", async () => {
    const { root, lines } = rootLogger();
    const log = requestLoggerFactory(root, { reqId: "req_3" }, {});
    log.error({ detail: "boom" }, "failed %s", "twice");
    log.debug("not at info");
    log.child({ agent: "a" }).info("from a child");
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, reqId: "req_3", detail: "boom", msg: "failed twice" }),
      expect.objectContaining({ level: 30, reqId: "req_3", agent: "a", msg: "from a child" }),
    ]);
  });

  it("keeps a route's own log level", async () => {
    const { root, lines } = rootLogger("info");
    const log = requestLoggerFactory(root, { reqId: "req_4" }, { level: "warn" });
    expect((log as unknown as pino.Logger).isLevelEnabled("info")).toBe(false);
    log.info("dropped");
    log.warn("kept");
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.msg)).toEqual(["kept"]);
    expect(log.level).toBe("warn");
  });
});
