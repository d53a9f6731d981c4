/**
 * Run alone by the startup section: opens the embedded store (migrations included) on an empty
 * data dir, from the template in argv[2] or by initdb when argv[2] holds none, and prints
 * `{ms, peakMb}` — time to a store ready for queries and this process's peak RSS.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openStore } from "../src/store/open.js";
import { peakRssMb } from "./lib/service-process.js";

const dir = mkdtempSync(join(tmpdir(), "agentport-bench-store-"));
const started = performance.now();
const db = await openStore({ pgliteDir: dir, pgliteTemplateDir: process.argv[2] });
const ms = performance.now() - started;
await db.query("SELECT count(*) FROM api_keys");
console.log(JSON.stringify({ ms, peakMb: peakRssMb("self") }));
await db.close();
rmSync(dir, { recursive: true, force: true });
