/**
 * The S3 and Azure Blob APIs for tests: s3rver in-process and azurite as a child process, both on
 * 127.0.0.1 with a port the OS picks. `blobEnv` gives the service environment for each kind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import S3rver from "s3rver";

export const BLOB_KINDS = ["local", "s3", "azure"] as const;
export type BlobKind = (typeof BLOB_KINDS)[number];

/** Azurite's well-known development account (public, documented by Microsoft). */
const AZURITE_ACCOUNT = "devstoreaccount1";
const AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const AZURITE_BIN = fileURLToPath(new URL("../../node_modules/.bin/azurite-blob", import.meta.url));

export interface Emulator {
  /** Environment for loadConfig; each call names a fresh bucket or container. */
  env(name: string): Record<string, string>;
  stop(): Promise<void>;
}

export async function startS3(): Promise<Emulator> {
  const directory = mkdtempSync(join(tmpdir(), "agentport-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory });
  const { port } = await server.run();
  return {
    env: (name) => ({
      BLOB_STORE: "s3",
      S3_BUCKET: name,
      S3_REGION: "us-east-1",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    }),
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function startAzurite(): Promise<Emulator> {
  const child: ChildProcess = spawn(
    AZURITE_BIN,
    [
      "--blobHost",
      "127.0.0.1",
      "--blobPort",
      "0",
      "--inMemoryPersistence",
      "--skipApiVersionCheck",
      "--disableTelemetry",
    ],
    { stdio: ["ignore", "pipe", "pipe"], cwd: tmpdir() },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`azurite did not start: ${out}`)), 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listens on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`azurite exited (${code}): ${out}`)));
  });
  return {
    env: (name) => ({
      BLOB_STORE: "azure",
      AZURE_CONTAINER: name,
      AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${url}/${AZURITE_ACCOUNT};`,
    }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Starts the emulator a blob kind needs (none for local); `env` then names the store's place. */
export async function startBlobBackend(kind: BlobKind): Promise<Emulator> {
  if (kind === "s3") return startS3();
  if (kind === "azure") return startAzurite();
  const root = mkdtempSync(join(tmpdir(), "agentport-blobs-"));
  return {
    env: (name) => ({ BLOB_STORE: "local", BLOB_DIR: join(root, name) }),
    async stop() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
