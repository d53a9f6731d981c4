import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { awsRdsCaBundle } from "../../infra/api/ca-bundle.js";
import { docdbUri } from "../../infra/data/aws.js";
import {
  DOCDB_CA_CONFIGMAP,
  DOCDB_CA_DIR,
  DOCDB_CA_FILE,
  DOCDB_CA_POSTRENDERER,
} from "../../infra/platform/postrender/docdb-ca.js";
import { PROJECT_ROOT, postRendererProblem } from "../../infra/stack/rules-lifecycle.js";
import { validateStack } from "../../infra/stack/validate.js";
import { schemaErrors } from "../helpers/k8s-schema.js";
import { rawStack } from "./fixtures.js";

/** A chart's rendered output as Helm hands it to a post-renderer: comments, several kinds, init containers. */
const RENDERED = `---
# Source: platform/templates/web.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: platform-web
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      initContainers:
        - name: migrate
          image: registry.example.com/web:1
      containers:
        - name: web
          image: registry.example.com/web:1
          volumeMounts: [{ name: tmp, mountPath: /tmp }]
      volumes: [{ name: tmp, emptyDir: {} }]
---
# Source: platform/templates/worker.yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: platform-worker
spec:
  serviceName: worker
  selector: { matchLabels: { app: worker } }
  template:
    metadata: { labels: { app: worker } }
    spec:
      containers:
        - { name: worker, image: registry.example.com/worker:1 }
        - { name: sidecar, image: registry.example.com/sidecar:1 }
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: platform-cleanup
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{ name: cleanup, image: registry.example.com/cleanup:1 }]
---
apiVersion: v1
kind: Service
metadata:
  name: platform-web
spec:
  ports: [{ port: 80 }]
`;

/** Runs the post-renderer the way Helm does (postrender.NewExec: stdin in, stdout out, no arguments), from another directory. */
function postRender(input: string, script = join(PROJECT_ROOT, DOCDB_CA_POSTRENDERER)) {
  const cwd = mkdtempSync(join(tmpdir(), "helm-"));
  try {
    const r = spawnSync(script, [], { input, cwd, encoding: "utf8", timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const containersOf = (spec: any): any[] => [...(spec.initContainers ?? []), ...spec.containers];
const podSpecOf = (o: any) => (o.kind === "CronJob" ? o.spec.jobTemplate.spec.template.spec : o.spec.template.spec);

describe("DocumentDB's CA delivered with the platform release (Helm post-renderer)", () => {
  const r = postRender(RENDERED);
  const objects = parseAllDocuments(r.stdout).map((d): any => d.toJS());

  it("exits 0 and mounts the CA read-only in every container of every pod template, keeping what was there", () => {
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const workloads = objects.filter((o) => ["Deployment", "StatefulSet", "CronJob"].includes(o.kind));
    expect(workloads).toHaveLength(3);
    for (const o of workloads) {
      const spec = podSpecOf(o);
      expect(spec.volumes, o.kind).toContainEqual({
        name: "agentport-docdb-ca",
        configMap: { name: DOCDB_CA_CONFIGMAP },
      });
      for (const c of containersOf(spec))
        expect(c.volumeMounts, `${o.kind}/${c.name}`).toContainEqual({
          name: "agentport-docdb-ca",
          mountPath: DOCDB_CA_DIR,
          readOnly: true,
        });
    }
    const web = objects.find((o) => o.kind === "Deployment");
    expect(podSpecOf(web).volumes).toContainEqual({ name: "tmp", emptyDir: {} });
    expect(objects.find((o) => o.kind === "Service").spec).toEqual({ ports: [{ port: 80 }] });
  });

  it("adds the ConfigMap with AWS's RDS CA bundle under the file name DocumentDB's URI names", async () => {
    const cm = objects.find((o) => o.kind === "ConfigMap");
    expect(cm.metadata.name).toBe(DOCDB_CA_CONFIGMAP);
    expect(cm.data).toEqual({ "aws-rds.pem": awsRdsCaBundle() });
    expect(`${DOCDB_CA_DIR}/aws-rds.pem`).toBe(DOCDB_CA_FILE);
    const uri = new URL(docdbUri("docdb.example", { username: "u", password: "p", database: "d" }, DOCDB_CA_FILE));
    expect(uri.searchParams.get("tlsCAFile")).toBe(DOCDB_CA_FILE);
    for (const o of objects) expect(await schemaErrors(o), o.kind).toEqual([]);
  });

  it("fails the install, naming the object, rather than shadow a mount the chart already has", () => {
    const clash = RENDERED.replace("mountPath: /tmp", `mountPath: ${DOCDB_CA_DIR}`);
    const failed = postRender(clash);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/Deployment platform-web container web already mounts tmp at \/etc\/agentport-ca/);
  });
});

describe("validation refuses a managed DocumentDB on aws the release cannot give the CA to", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const checkout = (mode: number | undefined) => {
    const root = mkdtempSync(join(tmpdir(), "checkout-"));
    dirs.push(root);
    if (mode === undefined) return root;
    const file = join(root, DOCDB_CA_POSTRENDERER);
    mkdirSync(join(file, ".."), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, DOCDB_CA_POSTRENDERER), file);
    chmodSync(file, mode);
    return root;
  };

  it("finds this checkout's post-renderer executable, and refuses one without it or without its execute bit", () => {
    expect(postRendererProblem(PROJECT_ROOT)).toBeUndefined();
    expect(postRendererProblem(checkout(0o755))).toBeUndefined();
    expect(postRendererProblem(checkout(0o644))).toMatch(/not executable/);
    expect(postRendererProblem(checkout(undefined))).toMatch(/missing/);
  });

  it("accepts prod-aws as committed, and refuses a CA path the release does not mount, by its path", () => {
    expect(validateStack(rawStack("prod-aws"), {}).ok).toBe(true);
    const raw = rawStack("prod-aws");
    raw.data.aws.docdbTlsCaFile = "/etc/ssl/rds.pem";
    const v = validateStack(raw, {});
    expect(v.ok ? [] : v.issues).toEqual([
      { path: "data.aws.docdbTlsCaFile", message: expect.stringContaining("remove this key") },
    ]);
  });
});
