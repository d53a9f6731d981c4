import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DockerfileParser, type Copy, type Instruction } from "dockerfile-ast";
import { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, streamableClient } from "../helpers/mcp.js";
import { openaiClient } from "../helpers/openai-client.js";
import { asImageUser, stageImage, startStaged, type StagedServer } from "../helpers/staged-image.js";

describe("the Dockerfile", () => {
  const dockerfile = DockerfileParser.parse(readFileSync("Dockerfile", "utf8"));
  const froms = dockerfile.getFROMs();
  const instructions = dockerfile.getInstructions();
  const finalFrom = froms[froms.length - 1];
  const finalStage = instructions.slice(
    instructions.findIndex((i) => i.getRange().start.line === finalFrom.getRange().start.line),
  );
  const args = (i: Instruction) => i.getArgumentsContent() ?? "";
  const last = (keyword: string) => finalStage.filter((i) => i.getKeyword() === keyword).at(-1);

  it("is multi-stage, every base image pinned by an exact version tag, on Node 24", () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const stages = new Set(froms.map((f) => f.getBuildStage()).filter(Boolean));
    for (const from of froms.filter((f) => !stages.has(f.getImageName() ?? ""))) {
      expect(from.getImageName()).toBe("node");
      expect(from.getImageTag()).toMatch(/^24\.\d+\.\d+-/);
    }
  });

  it("runs its final stage as uid/gid 1000, not root", () => {
    expect(args(last("USER")!)).toBe("1000:1000");
  });

  it("starts node itself as PID 1 (exec-form CMD, no npm, no shell)", () => {
    const cmd = last("CMD")!;
    expect(JSON.parse(args(cmd))).toEqual(["node", "server.js"]);
    expect(finalStage.some((i) => i.getKeyword() === "ENTRYPOINT")).toBe(false);
  });

  it("installs nothing in the final stage: it copies the staged build only", () => {
    expect(finalStage.filter((i) => i.getKeyword() === "RUN")).toEqual([]);
    const copies = finalStage.filter((i): i is Copy => i.getKeyword() === "COPY");
    expect(copies.map((c) => [c.getFromFlag()?.getValue(), args(c)])).toEqual([["build", "/stage /app"]]);
  });

  it("stamps the build with a constant SOURCE_DATE_EPOCH (a commit's time would change every digest)", () => {
    const globalArgs = instructions
      .slice(0, instructions.indexOf(froms[0]))
      .filter((i) => i.getKeyword() === "ARG")
      .map(args);
    expect(globalArgs).toContain("SOURCE_DATE_EPOCH=0");
  });

  it("writes only under /tmp and carries the OCI labels", () => {
    expect(args(last("ENV")!)).toMatch(/DATA_DIR=\/tmp\//);
    const labels = finalStage
      .filter((i) => i.getKeyword() === "LABEL")
      .map(args)
      .join(" ");
    for (const key of ["source", "version", "revision", "licenses"])
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
  });
});

describe(`the staged final stage, read-only, as ${asImageUser ? "uid 1000" : "the current user (not root: no uid switch)"}`, () => {
  let stage: Awaited<ReturnType<typeof stageImage>>;
  let server: StagedServer;
  let secret: string;

  beforeAll(async () => {
    stage = await stageImage();
    // IMAGE_NODE: another node binary to run the stage with, e.g. the image's Node 24.
    server = await startStaged(stage.dir, process.env.IMAGE_NODE);
    secret = JSON.parse(await server.keys("create", "--name", "smoke", "--json")).secret;
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    stage?.remove();
  });

  it("holds no TypeScript, tsx, Pulumi or dev dependency", async () => {
    const pkg = JSON.parse(readFileSync(`${stage.dir}/package.json`, "utf8"));
    expect(Object.keys(pkg.dependencies)).toEqual(["@electric-sql/pglite"]);
    expect(pkg.devDependencies).toBeUndefined();
    expect(readdirSync(`${stage.dir}/node_modules`)).toEqual(["@electric-sql"]);
    expect(readdirSync(stage.dir).filter((f) => f.endsWith(".ts"))).toEqual([]);
  });

  it("dates every file at SOURCE_DATE_EPOCH (0 unless set), not at the time of the build", () => {
    const paths = (readdirSync(stage.dir, { recursive: true }) as string[]).map((p) => join(stage.dir, p));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((p) => lstatSync(p).mtimeMs !== 0)).toEqual([]);
  });

  it("made its empty embedded store from the prebuilt template for its own PGlite version", () => {
    const version = JSON.parse(
      readFileSync(`${stage.dir}/node_modules/@electric-sql/pglite/package.json`, "utf8"),
    ).version;
    expect(readdirSync(stage.dir).filter((f) => f.endsWith("-datadir.tar.gz"))).toEqual([
      `pglite-${version}-datadir.tar.gz`,
    ]);
    expect(server.output()).toContain("from the prebuilt template");
  });

  it("lists the models and answers chat as JSON and as a stream, to the official openai client", async () => {
    const client = openaiClient(`${server.url}/v1`, secret);
    const models = (await client.models.list()).data.map((m) => m.id);
    expect(models).toContain("agentport/chat:latest");
    const json = await client.chat.completions.create({
      model: "agentport/synthetic-20",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(json.choices[0].finish_reason).toBe("stop");
    expect(json.usage!.completion_tokens).toBe(20);
    const stream = client.chat.completions.stream({
      model: "agentport/synthetic-20",
      messages: [{ role: "user", content: "hi" }],
    });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0].message.content!.length).toBeGreaterThan(0);
  });

  it("stores an upload and serves it back byte for byte", async () => {
    const client = openaiClient(`${server.url}/v1`, secret);
    const bytes = Buffer.from("the staged image keeps files\n".repeat(1000));
    const file = await client.files.create({ file: await toFile(bytes, "notes.txt"), purpose: "assistants" });
    const back = Buffer.from(await (await client.files.content(file.id)).arrayBuffer());
    expect(back.equals(bytes)).toBe(true);
  });

  it("counts per-key limits in Redis when REDIS_URL is set (its client is loaded only then)", async () => {
    const limited = await startStaged(stage.dir, process.env.IMAGE_NODE, {
      REDIS_URL: "redis://127.0.0.1:6379",
      RATE_LIMIT_RPM: "2",
    });
    try {
      const key = JSON.parse(await limited.keys("create", "--name", "limited", "--json")).secret;
      const ready = await (await fetch(`${limited.url}/health/ready`)).json();
      expect(ready).toMatchObject({ limits: "redis" });
      const models = async () =>
        (await fetch(`${limited.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
      expect([await models(), await models(), await models()]).toEqual([200, 200, 429]);
    } finally {
      await limited.stop();
    }
  }, 120_000);

  it("initializes an MCP session with the official client and lists the tools", async () => {
    const { client } = await streamableClient(`${server.url}/mcp`, bearer(secret));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("list_files");
    await client.close();
  });
});
