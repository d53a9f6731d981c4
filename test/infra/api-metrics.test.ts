import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_FILE, DASHBOARD_LABEL } from "../../infra/api/dashboard.js";
import { API_SCRAPE_JOB } from "../../infra/api/scrape.js";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { schemaErrors, unknownFields } from "../helpers/k8s-schema.js";
import { at, kubernetesObjects, planFor } from "./plan-helpers.js";

interface Panel {
  title: string;
  targets: Array<{ expr: string }>;
}
const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: string }> };
};

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("prod-aws");
});

describe("the platform's metrics component scrapes the API pods", () => {
  it("adds a pod job after the stack's own scrape configs", () => {
    const jobs = at(r.values, "monitoring.metrics.additionalScrapeConfigs") as Array<Record<string, any>>;
    expect(jobs.at(-1)).toMatchObject({
      job_name: API_SCRAPE_JOB,
      metrics_path: "/metrics",
      kubernetes_sd_configs: [{ role: "pod", namespaces: { names: ["agentport"] } }],
    });
  });

  it("keeps exactly the pods the Deployment runs, on the port that serves /metrics", () => {
    const job = (at(r.values, "monitoring.metrics.additionalScrapeConfigs") as Array<Record<string, any>>).at(-1)!;
    const deployment = kubernetesObjects(r.plan).find(
      (o) => o.obj.kind === "Deployment" && o.name === "api-deployment",
    )!.obj;
    const pod = deployment.spec.template;
    // Prometheus' service discovery names pod labels with every non-alphanumeric character as `_`.
    const discovered: Record<string, string> = {
      __meta_kubernetes_namespace: deployment.metadata.namespace,
      ...Object.fromEntries(
        Object.entries(pod.metadata.labels as Record<string, string>).map(([k, v]) => [
          `__meta_kubernetes_pod_label_${k.replace(/[^A-Za-z0-9_]/g, "_")}`,
          v,
        ]),
      ),
    };
    const ports = (pod.spec.containers[0].ports as Array<{ name: string }>).map((p) => p.name);
    for (const rule of job.relabel_configs.filter((c: { action?: string }) => c.action === "keep")) {
      const [source] = rule.source_labels as string[];
      const values = source === "__meta_kubernetes_pod_container_port_name" ? ports : [discovered[source]];
      expect(
        values.some((v) => new RegExp(`^(?:${rule.regex})$`).test(v)),
        source,
      ).toBe(true);
    }
    expect(job.kubernetes_sd_configs[0].namespaces.names).toEqual([deployment.metadata.namespace]);
  });
});

describe("the API's dashboard", () => {
  it("is a ConfigMap in the platform's namespace with the dashboards sidecar's label, valid for the API server", async () => {
    const cm = kubernetesObjects(r.plan).find((o) => o.name === "api-dashboard")!.obj;
    const release = r.plan.resources.find((x) => x.type === "kubernetes:helm.sh/v3:Release")!;
    expect(cm.metadata.namespace).toBe(release.inputs.namespace);
    expect(cm.metadata.labels).toMatchObject(DASHBOARD_LABEL);
    expect(JSON.parse(cm.data["agentport.json"])).toEqual(dashboard);
    expect(await schemaErrors(cm)).toEqual([]);
    expect(unknownFields(cm)).toEqual([]);
  });

  it("selects the scrape job's series", () => {
    expect(dashboard.templating.list.find((v) => v.name === "job")?.query).toBe(API_SCRAPE_JOB);
    for (const p of dashboard.panels) for (const t of p.targets) expect(t.expr, p.title).toContain('job="$job"');
  });
});

describe("every series the dashboard queries is one the service exports", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp("pglite");
  });
  afterAll(() => t.close());

  it("names only metrics found in /metrics (histograms by their _bucket series)", async () => {
    const exported = new Map(
      [...(await t.app.inject("/metrics")).body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]),
    );
    // `up` is the metrics component's own, one per scraped target.
    const queried = new Set(
      dashboard.panels.flatMap((p) =>
        p.targets.flatMap((t) => [...t.expr.matchAll(/([a-z_:][a-z0-9_:]*)\{/g)].map((m) => m[1])),
      ),
    );
    queried.delete("up");
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) {
      const histogram = name.endsWith("_bucket") ? name.slice(0, -"_bucket".length) : undefined;
      expect(histogram ? exported.get(histogram) : exported.has(name) && "exported", name).toBe(
        histogram ? "histogram" : "exported",
      );
    }
  });
});
