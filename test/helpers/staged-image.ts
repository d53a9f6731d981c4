/**
 * The image's final stage without a Docker engine: the Dockerfile's own staging command run into
 * a temporary directory, made read-only, and `node server.js` started from it the way the image's
 * CMD does — as uid/gid 1000 when the tests run as root, with NODE_ENV=production.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { DockerfileParser } from "dockerfile-ast";

const run = promisify(execFile);
export const IMAGE_UID = 1000;
/** The build stage's output directory as the Dockerfile names it (a whole argument). */
const STAGE_DIR = /(?<=\s)\/stage(?=\s|$)/;
export const asImageUser = process.getuid?.() === 0;

/** The build stage's RUN that fills /stage, as written in the Dockerfile. */
export function stagingCommand(dockerfile = readFileSync("Dockerfile", "utf8")): string {
  const runs = DockerfileParser.parse(dockerfile)
    .getInstructions()
    .filter((i) => i.getKeyword() === "RUN")
    .map((i) => i.getArgumentsContent() ?? "");
  const staging = runs.find((r) => STAGE_DIR.test(r));
  if (!staging) throw new Error("the Dockerfile has no RUN that writes /stage");
  return staging;
}

/** Runs the Dockerfile's staging command with DEST in place of /stage; returns the stage dir. */
export async function stageImage(): Promise<{ dir: string; remove(): void }> {
  const root = mkdtempSync(join(tmpdir(), "agentport-image-"));
  const dir = join(root, "app");
  const command = stagingCommand().replace(STAGE_DIR, dir);
  await run("sh", ["-c", command], { timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
  // Read-only root filesystem: nobody may write the app; directories stay traversable.
  chmodSync(root, 0o755);
  await run("chmod", ["-R", "a-w,a+rX", dir]);
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface StagedServer {
  child: ChildProcess;
  url: string;
  dataDir: string;
  /** What the server wrote on stdout and stderr so far. */
  output(): string;
  /** `node keys.js …` from the stage, as the image user, against the running server. */
  keys(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Starts `node server.js` from the stage with only the environment the image sets, and `extraEnv`'s. */
export async function startStaged(
  stage: string,
  node: string = process.execPath,
  extraEnv: Record<string, string> = {},
): Promise<StagedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentport-image-data-"));
  const ids = asImageUser ? { uid: IMAGE_UID, gid: IMAGE_UID } : {};
  if (asImageUser) chownSync(dataDir, IMAGE_UID, IMAGE_UID);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    DATA_DIR: dataDir,
    ...extraEnv,
  };
  const child = spawn(node, ["server.js"], { cwd: stage, env, ...ids, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`staged server did not listen within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`staged server exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    url,
    dataDir,
    output: () => out,
    keys: async (...args) =>
      (await run(node, ["keys.js", ...args], { cwd: stage, env, ...ids, timeout: 30_000 })).stdout,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
        child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
