import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultLimits, loadStackLimits, STACKS_DIR } from "../../infra/limits.js";
import { serviceSettings } from "../../infra/api/settings.js";
import { STACKS, specOf } from "./fixtures.js";

describe("stack limits for the load test", () => {
  it("reads the reference defaults from a stack that sets none", () => {
    expect(loadStackLimits("staging-aws")).toEqual({
      connectTimeoutMs: 180000,
      readTimeoutMs: 180000,
      writeTimeoutMs: 180000,
      clientBodyBufferSize: "5120k",
      clientBodyBufferBytes: 5242880,
      maxBodyBytes: 520 * 1024 ** 2,
      jsonBodyLimitBytes: 5242880,
      fileMaxBytes: 512 * 1024 ** 2,
      heartbeatSeconds: 15,
    });
  });

  it("reads the stack's own timeouts and body limits", () => {
    expect(loadStackLimits("local")).toMatchObject({
      readTimeoutMs: 60000,
      writeTimeoutMs: 60000,
      connectTimeoutMs: 180000,
    });
    expect(loadStackLimits("onprem")).toMatchObject({ fileMaxBytes: 1024 ** 3, maxBodyBytes: 1100 * 1024 ** 2 });
  });

  /** A copy of the local stack with `edit` applied to its text, as another stack file. */
  const variant = (name: string, edit: (yaml: string) => string) => {
    const dir = mkdtempSync(join(tmpdir(), "stacks-"));
    writeFileSync(join(dir, `Pulumi.${name}.yaml`), edit(readFileSync(join(STACKS_DIR, "Pulumi.local.yaml"), "utf8")));
    return dir;
  };

  it("takes a stack that sets none from the schema's defaults, the same the harness uses without a stack", () => {
    expect(defaultLimits()).toEqual(loadStackLimits("staging-aws"));
  });

  it("refuses to give limits of a stack the deployment would refuse", () => {
    const dir = variant("broken", (y) => y.replace('read-timeout: "60000"', 'read-timeout: "soon"'));
    expect(() => loadStackLimits("broken", dir)).toThrow(/ingress\.annotations\.read-timeout: must be milliseconds/);
  });

  it("derives a heartbeat below the read timeout when the stack sets a short one", () => {
    const dir = variant("tight", (y) =>
      y
        .replace('read-timeout: "60000"', 'read-timeout: "8000"')
        .replace(
          "  agentport:storage:",
          "  agentport:gateway:\n    env:\n      client_body_buffer_size: 64k\n  agentport:storage:",
        ),
    );
    const limits = loadStackLimits("tight", dir);
    expect(limits.heartbeatSeconds).toBe(4);
    expect(limits.clientBodyBufferBytes).toBe(65536);
    expect(limits.jsonBodyLimitBytes).toBe(65536);
  });

  it.each(STACKS)("gives the %s service a heartbeat below the gateway read timeout and the same limits", (stack) => {
    const s = serviceSettings(specOf(stack));
    const limits = loadStackLimits(stack);
    expect(Number(s.env.HEARTBEAT_SECONDS) * 1000).toBeLessThan(limits.readTimeoutMs);
    expect(Number(s.env.JSON_BODY_LIMIT)).toBe(limits.jsonBodyLimitBytes);
    expect(Number(s.env.FILE_MAX_BYTES)).toBe(limits.fileMaxBytes);
    // Kong (class gateway) reads timeouts from the Service: the ones the load test verifies.
    expect(s.serviceAnnotations["konghq.com/read-timeout"]).toBe(String(limits.readTimeoutMs));
    expect(s.serviceAnnotations["konghq.com/connect-timeout"]).toBe(String(limits.connectTimeoutMs));
    expect(s.serviceAnnotations["konghq.com/write-timeout"]).toBe(String(limits.writeTimeoutMs));
    expect(s.ingressAnnotations).toMatchObject({
      "konghq.com/request-buffering": "false",
      "konghq.com/response-buffering": "false",
    });
    expect(Object.keys(s.ingressAnnotations).filter((k) => k.startsWith("nginx.") || k.endsWith("-timeout"))).toEqual(
      [],
    );
  });

  it("writes ingress-nginx annotations, on the Ingress, only for an nginx class", () => {
    const spec = specOf("local");
    const limits = loadStackLimits("local");
    const nginx = serviceSettings({
      ...spec,
      api: { ...spec.api, ingressClassName: "nginx", annotationPrefix: "nginx.ingress.kubernetes.io" },
    });
    expect(nginx.serviceAnnotations).toEqual({});
    expect(nginx.ingressAnnotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]).toBe(
      String(limits.readTimeoutMs / 1000),
    );
    expect(nginx.ingressAnnotations["nginx.ingress.kubernetes.io/client-body-buffer-size"]).toBe(
      limits.clientBodyBufferSize,
    );
    expect(nginx.ingressAnnotations["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
  });

  it("gives the pod enough grace to drain streams after the pre-stop sleep", () => {
    const s = serviceSettings(specOf("local"));
    expect(s.terminationGracePeriodSeconds).toBeGreaterThan(Number(s.env.SHUTDOWN_GRACE_SECONDS));
  });
});
