import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { migrationFiles } from "../../service/src/store/migrate.js";
import { openStore } from "../../service/src/store/open.js";
import { templateFor, templateName, writeTemplate } from "../../service/src/store/pglite-template.js";

describe("the embedded store's prebuilt template", () => {
  let root: string;
  let templateDir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "agentport-template-"));
    templateDir = join(root, "template");
    mkdirSync(templateDir);
    await writeTemplate(templateDir);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("gives an empty data dir a working store: migrations applied, a key created and accepted, all still there on the next start", async () => {
    const dataDir = join(root, "data");
    const said: string[] = [];
    const db = await openStore({
      pgliteDir: join(dataDir, "pg"),
      pgliteTemplateDir: templateDir,
      info: (m) => said.push(m),
    });
    expect(said.join("\n")).toContain("from the prebuilt template");
    const applied = await db.query<{ name: string }>("SELECT name FROM schema_migrations ORDER BY name");
    expect(applied.rows.map((r) => r.name)).toEqual(migrationFiles());

    const config = loadConfig({
      DATA_DIR: dataDir,
      JWT_SECRET: "test-jwt-secret-".padEnd(64, "x"),
      LOG_LEVEL: "silent",
    });
    const app = await buildApp({ config, db, logger: false });
    const { secret } = await app.apiKeys.create({
      projectId: "default",
      name: "from template",
      createdBy: "user_test",
    });
    const models = await app.inject({
      method: "GET",
      url: "/v1/models",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(models.statusCode).toBe(200);
    await app.close();
    await db.close();

    const again: string[] = [];
    const reopened = await openStore({
      pgliteDir: join(dataDir, "pg"),
      pgliteTemplateDir: templateDir,
      info: (m) => again.push(m),
    });
    expect(again).toEqual([]);
    expect((await reopened.query("SELECT name FROM api_keys")).rows).toEqual([{ name: "from template" }]);
    await reopened.close();
  });

  it("is used only for an empty data dir and only by the PGlite version that made it", () => {
    const empty = join(root, "empty");
    expect(templateFor(empty, templateDir)).toBeInstanceOf(Blob);
    const other = join(root, "other-version");
    mkdirSync(other);
    copyFileSync(join(templateDir, templateName()), join(other, templateName("0.0.1")));
    expect(templateFor(empty, other)).toBeUndefined();
  });
});
