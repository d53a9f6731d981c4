/**
 * `--local`: two service instances with synthetic agents — one with the stack's heartbeat,
 * one with heartbeats effectively off (the negative control) — behind one real nginx
 * rendered from the stack's limits. Everything on 127.0.0.1, torn down by pid.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signMemberToken } from "../../service/src/domain/member-token.js";
import type { Limits } from "../gateway/limits.js";
import { startGateway, type RunningGateway } from "../gateway/nginx-process.js";
import { freePort } from "../gateway/ports.js";
import type { Http } from "./http.js";
import { httpKeyAdmin } from "./key-admin.js";
import { startService, type RunningService } from "./service-process.js";
import type { Target } from "./types.js";

const PROJECT = "loadtest";
/** A day: no heartbeat will ever be sent during a run. */
const NO_HEARTBEAT_SECONDS = "86400";

export interface LocalOptions {
  /** Already time-scaled. */
  limits: Limits;
  http: Http;
  streamTokens: number;
  tokenIntervalMs: number;
  /** The paced agent's wait before its first token, ms. */
  prefillMs: number;
  nginx?: string;
}

export interface LocalTarget {
  target: Target;
  gateway: RunningGateway;
  services: RunningService[];
  stop(): Promise<void>;
}

export async function startLocalTarget(opts: LocalOptions): Promise<LocalTarget> {
  const { limits } = opts;
  const jwtSecret = randomBytes(48).toString("base64url");
  const silenceMs = Math.round(limits.readTimeoutMs * 1.5);
  const [mainPort, quietPort, gwMain, gwQuiet] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  // Both instances read one agents file from a scratch directory removed on stop.
  const scratch = mkdtempSync(join(tmpdir(), "agentport-agents-"));
  const agentsFile = join(scratch, "agents.json");
  const agents = [
    // Paced like a model: a prefill before the first token, then one token per interval.
    {
      id: "loadtest-stream",
      kind: "synthetic",
      tokens: opts.streamTokens,
      interval_ms: opts.tokenIntervalMs,
      ...(opts.prefillMs > 0 ? { silence_ms: opts.prefillMs } : {}),
      description: "Load test: paced stream.",
    },
    {
      id: "loadtest-silent",
      kind: "synthetic",
      tokens: 3,
      silence_ms: silenceMs,
      description: "Load test: silent past the read timeout.",
    },
  ];
  writeFileSync(agentsFile, JSON.stringify({ agents }));
  const env = (heartbeat: string, publicPort: number) => ({
    JWT_SECRET: jwtSecret,
    HEARTBEAT_SECONDS: heartbeat,
    JSON_BODY_LIMIT: String(limits.jsonBodyLimitBytes),
    FILE_MAX_BYTES: String(limits.fileMaxBytes),
    PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
  });

  const services: RunningService[] = [];
  let gateway: RunningGateway | undefined;
  const stop = async () => {
    await gateway?.stop();
    await Promise.all(services.map((s) => s.stop()));
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const started = await Promise.allSettled([
      startService({
        port: mainPort,
        env: { ...env(String(limits.heartbeatSeconds), gwMain), AGENTS_FILE: agentsFile },
      }),
      startService({ port: quietPort, env: { ...env(NO_HEARTBEAT_SECONDS, gwQuiet), AGENTS_FILE: agentsFile } }),
    ]);
    for (const s of started) if (s.status === "fulfilled") services.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    gateway = await startGateway({
      nginx: opts.nginx,
      limits,
      routes: [
        { name: "agentport", listenPort: gwMain, upstreamPort: mainPort },
        { name: "agentport_no_heartbeat", listenPort: gwQuiet, upstreamPort: quietPort },
      ],
    });
    const baseUrl = `http://127.0.0.1:${gwMain}`;
    const quietUrl = `http://127.0.0.1:${gwQuiet}`;
    const token = () => signMemberToken({ userId: "user_loadtest", projectId: PROJECT, role: "owner" }, jwtSecret);
    const keyAdmin = httpKeyAdmin(opts.http, baseUrl, PROJECT, token);
    const [main, quiet] = await Promise.all([
      keyAdmin.create("loadtest"),
      httpKeyAdmin(opts.http, quietUrl, PROJECT, token).create("loadtest-no-heartbeat"),
    ]);
    const target: Target = {
      baseUrl,
      key: main.secret,
      noHeartbeat: { baseUrl: quietUrl, key: quiet.secret },
      keyAdmin,
      streamModel: "agentport/loadtest-stream",
      streamTokens: opts.streamTokens,
      silentModel: "agentport/loadtest-silent",
      silenceMs,
      blobDir: services[0].blobDir,
      gatewayErrorLog: gateway.errorLog,
      describe: `local: service pid ${services[0].pid} (+ no-heartbeat pid ${services[1].pid}) behind nginx pid ${gateway.pid} on ${baseUrl}`,
    };
    return { target, gateway, services, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
