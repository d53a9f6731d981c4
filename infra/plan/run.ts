/**
 * Runs the program offline for one stack: mocked providers, the stack file as config
 * (`secure:` entries as stand-ins), no credentials. One stack per process: the program
 * runs when infra/index.ts is first imported.
 */
import * as pulumi from "@pulumi/pulumi";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc.js";
import { createRecorder, type RecordedInvoke, type RecordedResource } from "./mocks.js";
import { readStackFile, withEdits } from "./stack-file.js";

export interface PlanOutput {
  value: unknown;
  secret: boolean;
}

/** The resource options a reviewer must see (mocks never get them). */
export interface PlanOptions {
  protect: boolean;
  /** Names of the resources this one waits for explicitly. */
  dependsOn: string[];
  ignoreChanges: string[];
  /** Properties whose change replaces the resource instead of updating it. */
  replaceOnChanges: string[];
}

export interface Plan {
  stack: string;
  /** Resources in registration order, inputs as the provider would get them. */
  resources: RecordedResource[];
  /** Provider functions the program called, in call order (listKeys, getServer, …). */
  invokes: RecordedInvoke[];
  /** Stack outputs. */
  outputs: Record<string, PlanOutput>;
  /** Every value known to be secret: mock-generated ones and `secure:` stand-ins. */
  secretValues: Set<string>;
  /** Options by `type::name`, recorded as the program declares each resource. */
  options: Map<string, PlanOptions>;
  /** By `type::name`: the resources each input is built from, as the engine's property dependencies. */
  propertyDependencies: Map<string, Record<string, string[]>>;
}

/** True for a serialized secret (how secret inputs reach a provider). */
export const isSecretEnvelope = (v: unknown): v is { value: unknown } =>
  !!v && typeof v === "object" && (v as Record<string, unknown>)[specialSigKey] === specialSecretSig;

/** `edits`: `PATH=VALUE` changes to the stack file, planned as if made (withEdits). */
export async function runPlan(stack: string, stacksDir?: string, edits: string[] = []): Promise<Plan> {
  const file = withEdits(readStackFile(stack, stacksDir), edits);
  const recorder = createRecorder();
  await pulumi.runtime.setMocks(recorder.mocks, "agentport", stack, false);
  pulumi.runtime.setAllConfig(
    Object.fromEntries(Object.entries(file.config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])),
    file.secretKeys,
  );
  const options = new Map<string, PlanOptions>();
  const propertyDependencies = new Map<string, Record<string, string[]>>();
  const pendingDependencies: Promise<void>[] = [];
  let program: Record<string, unknown> = {};
  let failure: unknown;
  // As the Pulumi CLI runs a program: inside the root stack resource, which lets a stack
  // transformation see every resource's options as declared (mocks never get them).
  await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation(({ type, name, props, opts }) => {
      pendingDependencies.push(
        inputDependencies(props).then((d) => void propertyDependencies.set(`${type}::${name}`, d)),
      );
      const deps =
        opts.dependsOn && !pulumi.Output.isInstance(opts.dependsOn)
          ? Array.isArray(opts.dependsOn)
            ? opts.dependsOn
            : [opts.dependsOn]
          : [];
      options.set(`${type}::${name}`, {
        protect: opts.protect === true,
        dependsOn: deps.map(resourceName),
        ignoreChanges: opts.ignoreChanges ?? [],
        replaceOnChanges: opts.replaceOnChanges ?? [],
      });
      return undefined;
    });
    try {
      program = await import("../index.js");
    } catch (err) {
      failure = err; // thrown below: a rejection inside the stack resource would go unhandled
    }
    return {};
  });
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrown as the program threw it
  if (failure) throw failure;
  // The root stack resource is the engine's, not the program's.
  const resources = recorder.resources;
  const stackIndex = resources.findIndex((r) => r.type === "pulumi:pulumi:Stack");
  if (stackIndex >= 0) resources.splice(stackIndex, 1);
  const outputs: Record<string, PlanOutput> = {};
  for (const [name, value] of Object.entries(program)) {
    if (pulumi.Output.isInstance(value)) {
      const out = value;
      // The output's own promise: it rejects when the program fails inside an apply (a failed
      // check). Its sibling promises reject with it; observe them so the failure is reported once.
      const internals = out as unknown as {
        promise(): Promise<unknown>;
        isKnown?: Promise<unknown>;
        isSecret?: Promise<unknown>;
      };
      internals.isKnown?.catch(() => {});
      internals.isSecret?.catch(() => {});
      const resolved = await internals.promise();
      outputs[name] = { value: resolved, secret: await pulumi.isSecret(out) };
    } else {
      outputs[name] = { value, secret: false };
    }
  }
  await settle(recorder.resources);
  await Promise.all(pendingDependencies);
  for (const p of file.securePaths) recorder.secretValues.add(`secret-standin:${p}`);
  return {
    stack,
    resources: recorder.resources,
    invokes: recorder.invokes,
    outputs,
    secretValues: recorder.secretValues,
    options,
    propertyDependencies,
  };
}

const resourceName = (r: unknown) => String((r as { __name?: string }).__name ?? "?");

/** The resources behind each Output input (what the SDK sends the engine as property dependencies). */
async function inputDependencies(props: pulumi.Inputs): Promise<Record<string, string[]>> {
  const entries = await Promise.all(
    Object.entries(props ?? {})
      .filter(([, v]) => pulumi.Output.isInstance(v))
      .map(async ([k, v]) => {
        // allResources is the SDK's own (untyped) record of them; a failed Output has none.
        const all = (v as unknown as { allResources(): Promise<Set<unknown>> })
          .allResources()
          .catch(() => new Set<unknown>());
        return [k, [...(await all)].map(resourceName)] as const;
      }),
  );
  return Object.fromEntries(entries);
}

/** Waits until no new resource registers for a few turns of the event loop. */
async function settle(resources: unknown[]): Promise<void> {
  let quiet = 0;
  let last = -1;
  while (quiet < 5) {
    await new Promise((r) => setTimeout(r, 10));
    quiet = resources.length === last ? quiet + 1 : 0;
    last = resources.length;
  }
}
