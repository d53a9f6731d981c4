import { describe, expect, it } from "vitest";
import { renderNginxConfig } from "../../loadtest/gateway/nginx-config.js";
import { scaleLimits, type Limits } from "../../loadtest/gateway/limits.js";

const limits: Limits = {
  connectTimeoutMs: 180_000,
  readTimeoutMs: 180_000,
  writeTimeoutMs: 180_000,
  clientBodyBufferSize: "5120k",
  clientBodyBufferBytes: 5120 * 1024,
  maxBodyBytes: 600 * 1024 * 1024,
  jsonBodyLimitBytes: 5120 * 1024,
  fileMaxBytes: 512 * 1024 * 1024,
  heartbeatSeconds: 15,
};

const render = (l: Limits = limits) =>
  renderNginxConfig({
    dir: "/tmp/gw-x",
    routes: [
      { name: "main", listenPort: 18080, upstreamPort: 18081 },
      { name: "no_heartbeat", listenPort: 18082, upstreamPort: 18083 },
    ],
    limits: l,
  });

/** Directive values inside the rendered text, in order. */
const values = (conf: string, directive: string) =>
  [...conf.matchAll(new RegExp(`^\\s*${directive}\\s+([^;{\\n]+);`, "gm"))].map((m) => m[1]);

describe("nginx config renderer", () => {
  it("carries the stack's timeouts, body buffer and max body size into every server", () => {
    const conf = render();
    expect(values(conf, "proxy_read_timeout")).toEqual(["180000ms", "180000ms"]);
    expect(values(conf, "proxy_send_timeout")).toEqual(["180000ms", "180000ms"]);
    expect(values(conf, "proxy_connect_timeout")).toEqual(["180000ms", "180000ms"]);
    expect(values(conf, "client_body_buffer_size")).toEqual(["5242880", "5242880"]);
    expect(values(conf, "client_max_body_size")).toEqual([String(600 * 1024 * 1024), String(600 * 1024 * 1024)]);
  });

  it("scales timeouts with the time scale and leaves sizes alone", () => {
    const conf = render(scaleLimits(limits, 0.01));
    expect(values(conf, "proxy_read_timeout")).toEqual(["1800ms", "1800ms"]);
    expect(values(conf, "client_body_buffer_size")).toEqual(["5242880", "5242880"]);
    expect(scaleLimits(limits, 0.01).heartbeatSeconds).toBe(0.15);
  });

  it("streams responses unbuffered, buffers requests, keeps HTTP/1.1 upstream connections", () => {
    const conf = render();
    expect(values(conf, "proxy_buffering")).toEqual(["off", "off"]);
    expect(values(conf, "proxy_request_buffering")).toEqual(["on", "on"]);
    expect(values(conf, "proxy_http_version")).toEqual(["1.1", "1.1"]);
    expect(values(conf, "proxy_set_header Connection")).toEqual(['""', '""']);
    expect(values(conf, "keepalive")).toEqual(["32", "32"]);
    expect(values(conf, "proxy_pass")).toEqual(["http://main", "http://no_heartbeat"]);
  });

  it("listens on loopback only and keeps every path inside its directory", () => {
    const conf = render();
    expect(values(conf, "listen")).toEqual(["127.0.0.1:18080", "127.0.0.1:18082"]);
    expect(values(conf, "server")).toEqual(["127.0.0.1:18081", "127.0.0.1:18083"]);
    const paths = [
      ...values(conf, "pid"),
      ...values(conf, "error_log"),
      ...values(conf, "access_log"),
      ...values(conf, "\\w+_temp_path"),
    ];
    expect(paths).toHaveLength(8);
    for (const p of paths) expect(p.startsWith("/tmp/gw-x/")).toBe(true);
  });

  it("renders an unlimited body size as 0, as nginx spells it", () => {
    expect(values(render({ ...limits, maxBodyBytes: 0 }), "client_max_body_size")).toEqual(["0", "0"]);
  });

  it("refuses values nginx would misread", () => {
    expect(() => render({ ...limits, readTimeoutMs: 0 })).toThrow(/readTimeoutMs/);
    expect(() => render({ ...limits, maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes/);
    expect(() =>
      renderNginxConfig({ dir: "/d", routes: [{ name: "a b", listenPort: 1, upstreamPort: 2 }], limits }),
    ).toThrow(/route name/);
    expect(() => renderNginxConfig({ dir: "/d", routes: [], limits })).toThrow(/at least one route/);
  });
});
