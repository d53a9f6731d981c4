import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

interface JsonResource {
  type: string;
  name: string;
  inputs: Record<string, any>;
  options: { protect: boolean };
}
interface JsonPlan {
  resources: JsonResource[];
  outputs: Record<string, unknown>;
}

/** The stack's plan as a build of other service code would make it: the same tag, another digest. */
async function planWithSources(stack: string, sources: string): Promise<JsonPlan> {
  const { stdout } = await run("node", ["--import", "tsx", "infra/plan/cli.ts", "--stack", stack, "--json"], {
    env: { ...process.env, PLAN_IMAGE_SOURCES: sources },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 240_000,
  });
  return JSON.parse(stdout) as JsonPlan;
}

const key = (r: JsonResource) => `${r.type}::${r.name}`;
/** A pod template with its containers' images taken out. */
const withoutImages = (r: JsonResource) => {
  const copy = structuredClone(r.inputs);
  for (const c of copy.spec.template.spec.containers) delete c.image;
  return copy;
};

/** The `up` after a commit that changes the service's code (prod-aws: ECR, RDS, the DB-role Job). */
describe("the second up after a service code change (prod-aws)", () => {
  let before: JsonPlan;
  let after: JsonPlan;
  beforeAll(async () => {
    [before, after] = await Promise.all([
      planWithSources("prod-aws", "commit-1"),
      planWithSources("prod-aws", "commit-2"),
    ]);
  }, 300_000);

  it("changes only the image reference and the Deployment's pod template: nothing stateful, not the DB-role Job", () => {
    expect(after.outputs.apiImageRef).not.toEqual(before.outputs.apiImageRef);
    expect(after.resources.map(key)).toEqual(before.resources.map(key));
    const previous = new Map(before.resources.map((r) => [key(r), r]));
    const changed = after.resources.filter(
      (r) => JSON.stringify(r.inputs) !== JSON.stringify(previous.get(key(r))!.inputs),
    );
    // The Job is keyed on what it provisions (its build tag, not the digest): unrelated code never
    // runs it, so a master-side hiccup cannot fail that deploy.
    expect(changed.map(key).sort()).toEqual(["kubernetes:apps/v1:Deployment::api-deployment"]);
    for (const r of changed) {
      expect(r.options.protect, key(r)).toBe(false);
      // Only the images inside the pod template differ.
      expect(withoutImages(r), key(r)).toEqual(withoutImages(previous.get(key(r))!));
      expect(r.inputs.spec.template.spec.containers[0].image).toBe(after.outputs.apiImageRef);
    }
    const changedOutputs = Object.keys(after.outputs).filter(
      (k) => JSON.stringify(after.outputs[k]) !== JSON.stringify(before.outputs[k]),
    );
    expect(changedOutputs).toEqual(["apiImageRef"]);
  });
});
