/**
 * Child process for the files bench: the service with the local blob store (PGlite in memory),
 * sampling its own RSS so the parent can read the peak during an upload or a download.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/open.js";

export interface FilesServer {
  url: string;
  key: string;
}
/** Parent → child: "reset" starts a new peak; "peak" asks for it (answered as { rss, peak }). */
export type RssMessage = "reset" | "peak";
export interface RssReport {
  /** RSS when the peak was reset, in bytes. */
  base: number;
  peak: number;
}

const SAMPLE_MS = 5;

const dir = mkdtempSync(join(tmpdir(), "agentport-bench-files-"));
const config = loadConfig({ DATA_DIR: dir, JWT_SECRET: "bench".padEnd(64, "-"), FILE_MAX_BYTES: "1g" });
const app = await buildApp({ config, db: await openStore({}), logger: false });
await app.listen({ port: 0, host: "127.0.0.1" });
const { secret } = await app.apiKeys.create({ projectId: "default", name: "bench", createdBy: "bench" });

let base = process.memoryUsage.rss();
let peak = base;
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, SAMPLE_MS).unref();

process.on("message", (m: RssMessage) => {
  if (m === "reset") {
    base = peak = process.memoryUsage.rss();
    process.send!({ base, peak } satisfies RssReport);
  } else if (m === "peak") {
    peak = Math.max(peak, process.memoryUsage.rss());
    process.send!({ base, peak } satisfies RssReport);
  }
});
process.on("SIGTERM", () => void app.close().finally(() => process.exit(0)));

process.send!({
  url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  key: secret,
} satisfies FilesServer);
