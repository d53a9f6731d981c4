/**
 * `npm run plan -- --stack NAME`: the program offline, printed with secrets masked.
 * Exit code 1 when the stack is invalid (every problem is listed).
 */
import { performance } from "node:perf_hooks";
import { formatPlan } from "./format.js";
import { runPlan } from "./run.js";

function stackArg(argv: string[]): string | undefined {
  const i = argv.findIndex((a) => a === "--stack" || a === "-s");
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith("--stack="))?.slice("--stack=".length);
}

// Every resource captures a stack trace; mapping each through source maps costs more than the plan.
process.setSourceMapsEnabled(false);

const stack = stackArg(process.argv.slice(2));
if (!stack) {
  console.error("usage: npm run plan -- --stack <local|staging-aws|prod-aws|prod-azure|onprem>");
  process.exit(2);
}
const started = performance.now();
try {
  const plan = await runPlan(stack);
  process.stdout.write(formatPlan(plan));
  process.stdout.write(`\nPlanned ${plan.resources.length} resources in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
