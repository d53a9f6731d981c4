/**
 * Renders an nginx config that behaves like the stack's ingress in front of the service:
 * the stack's timeouts and body settings, no response buffering (SSE), request buffering
 * on (as ingress-nginx and Kong do), HTTP/1.1 keep-alive to the upstream. Pure: the caller
 * owns the directory and the process.
 */
import { join } from "node:path";
import type { Limits } from "./limits.js";

/** One listener forwarding to one service instance. */
export interface GatewayRoute {
  /** Used for the upstream block's name; letters, digits and underscores. */
  name: string;
  /** Port the gateway listens on (127.0.0.1 only). */
  listenPort: number;
  /** Port of the service instance behind it (127.0.0.1). */
  upstreamPort: number;
}

export interface NginxConfigOptions {
  /** Directory that holds the pid file, logs and every temp path. */
  dir: string;
  routes: GatewayRoute[];
  /** Limits already scaled to the run's time scale. */
  limits: Limits;
  /** Worker processes; one keeps a test gateway predictable. */
  workers?: number;
}

const NAME = /^[A-Za-z0-9_]+$/;

function port(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new Error(`${what} must be a TCP port (got ${value})`);
  return value;
}

function ms(value: number, what: string): string {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${what} must be a positive whole number of ms (got ${value})`);
  return `${value}ms`;
}

function bytes(value: number, what: string): string {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what} must be a byte count >= 0 (got ${value})`);
  return String(value);
}

function serverBlock(route: GatewayRoute, limits: Limits): string {
  return `
  upstream ${route.name} {
    server 127.0.0.1:${port(route.upstreamPort, "upstreamPort")};
    keepalive 32;
  }

  server {
    listen 127.0.0.1:${port(route.listenPort, "listenPort")};
    # A larger body is spilled to a temp file, not refused: only client_max_body_size refuses (413).
    client_body_buffer_size ${bytes(limits.clientBodyBufferBytes, "clientBodyBufferBytes")};
    client_max_body_size ${bytes(limits.maxBodyBytes, "maxBodyBytes")};

    location / {
      proxy_pass http://${route.name};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Idle timeouts between two reads/writes, not whole-request deadlines.
      proxy_connect_timeout ${ms(limits.connectTimeoutMs, "connectTimeoutMs")};
      proxy_read_timeout ${ms(limits.readTimeoutMs, "readTimeoutMs")};
      proxy_send_timeout ${ms(limits.writeTimeoutMs, "writeTimeoutMs")};
      # SSE must reach the client chunk by chunk; the request body is buffered like a real ingress.
      proxy_buffering off;
      proxy_request_buffering on;
    }
  }
`;
}

export function renderNginxConfig(opts: NginxConfigOptions): string {
  if (opts.routes.length === 0) throw new Error("a gateway needs at least one route");
  const names = new Set<string>();
  for (const r of opts.routes) {
    if (!NAME.test(r.name)) throw new Error(`route name '${r.name}' must be letters, digits or underscores`);
    if (names.has(r.name)) throw new Error(`route name '${r.name}' is used twice`);
    names.add(r.name);
  }
  const path = (name: string) => join(opts.dir, name);
  return `# Rendered by the load-test harness; lives and dies with its directory.
worker_processes ${opts.workers ?? 1};
pid ${path("nginx.pid")};
error_log ${path("error.log")} warn;

events {
  worker_connections 1024;
}

http {
  log_format timing '$remote_addr "$request" $status $body_bytes_sent rt=$request_time urt=$upstream_response_time';
  access_log ${path("access.log")} timing;
  client_body_temp_path ${path("client_body_temp")};
  proxy_temp_path ${path("proxy_temp")};
  fastcgi_temp_path ${path("fastcgi_temp")};
  uwsgi_temp_path ${path("uwsgi_temp")};
  scgi_temp_path ${path("scgi_temp")};
  default_type application/octet-stream;
  server_tokens off;
${opts.routes.map((r) => serverBlock(r, opts.limits)).join("")}}
`;
}
