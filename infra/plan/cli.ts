/**
 * `npm run plan -- --stack NAME [--json]`: the program offline, printed with secrets masked —
 * as text for people, or as one JSON document (resources with inputs and options, outputs).
 * Exit code 1 when the stack is invalid (every problem is listed), 2 on a usage error.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { formatPlan, planJson } from "./format.js";
import { runPlan } from "./run.js";
import { STACKS_DIR } from "../limits.js";
import { assertStackExists, stackNames } from "../stack/stack-names.js";
import { SERVICE_VERSION } from "../../service/src/version.js";

const USAGE = `usage: npm run plan -- --stack NAME [--set PATH=VALUE]... [--json]

  -s, --stack NAME              the stack file stacks/Pulumi.NAME.yaml (${stackNames(STACKS_DIR).join(", ")})
      --set PATH=VALUE          plan as if the stack file said so (e.g. data.aws.postgresInstanceClass=db.r6g.xlarge;
                                PATH=~ as if it lacked the key)
      --json                    print the plan as one JSON document
  -h, --help                    this text
      --version                 the agentport version`;

let args;
try {
  args = parseArgs({
    options: {
      stack: { type: "string", short: "s" },
      set: { type: "string", multiple: true },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
    strict: true,
  }).values;
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.version) {
  console.log(`agentport ${SERVICE_VERSION}`);
  process.exit(0);
}
if (!args.stack) {
  console.error(USAGE);
  process.exit(2);
}
try {
  assertStackExists(args.stack, STACKS_DIR);
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

// Every resource captures a stack trace; mapping each through source maps costs more than the plan.
process.setSourceMapsEnabled(false);

const started = performance.now();
try {
  const plan = await runPlan(args.stack, undefined, args.set ?? []);
  if (args.json) {
    process.stdout.write(JSON.stringify(planJson(plan), null, 2) + "\n");
  } else {
    process.stdout.write(formatPlan(plan));
    process.stdout.write(
      `\nPlanned ${plan.resources.length} resources in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
