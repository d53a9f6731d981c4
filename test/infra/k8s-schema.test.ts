import { describe, expect, it } from "vitest";
import { schemaErrors, unknownFields } from "../helpers/k8s-schema.js";

describe("the Kubernetes schema checks", () => {
  it("catch a wrong type and a misspelt field", async () => {
    const bad = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x" },
      spec: {
        replica: 2,
        selector: { matchLabels: { a: "b" } },
        template: { spec: { containers: [{ name: "c", image: 5 }] } },
      },
    };
    expect((await schemaErrors(bad)).length).toBeGreaterThan(0);
    expect(unknownFields(bad)).toEqual(["Deployment.spec.replica"]);
  });
});
