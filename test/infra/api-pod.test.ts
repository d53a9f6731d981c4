import { describe, expect, it } from "vitest";
import { apiPodTemplate } from "../../infra/api/pod.js";
import { serviceSettings } from "../../infra/api/settings.js";
import { specOf } from "./fixtures.js";

describe("API pod template builder", () => {
  const spec = specOf("prod-aws");
  const base = {
    api: spec.api,
    settings: serviceSettings(spec),
    image: "img@sha256:abc",
    labels: { app: "api" },
    envSecretName: "env",
  };

  it("runs restricted, with probes, a preStop pause and a writable /tmp only", () => {
    const pod = apiPodTemplate(base) as any;
    const c = pod.spec.containers[0];
    expect(pod.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect([c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.path]).toEqual(["/health", "/health/ready"]);
    expect(c.lifecycle.preStop.sleep.seconds).toBeGreaterThan(0);
    expect(c.volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
    expect(pod.metadata.annotations).toBeUndefined();
    expect(pod.spec.imagePullSecrets).toBeUndefined();
  });

  it("mounts the agents file and the CA bundle when given, and rolls on an agents change", () => {
    const pod = apiPodTemplate({
      ...base,
      agents: { configMapName: "agents", checksum: "c1" },
      caConfigMapName: "ca",
      pullSecretName: "pull",
      serviceAccountName: "sa",
    }) as any;
    expect(pod.metadata.annotations).toEqual({ "agentport.dev/agents-checksum": "c1" });
    expect(pod.spec.volumes.map((v: any) => v.name)).toEqual(["tmp", "agents", "ca"]);
    expect(pod.spec.containers[0].volumeMounts.every((m: any) => m.name === "tmp" || m.readOnly)).toBe(true);
    expect(pod.spec.imagePullSecrets).toEqual([{ name: "pull" }]);
    expect(pod.spec.serviceAccountName).toBe("sa");
  });
});
