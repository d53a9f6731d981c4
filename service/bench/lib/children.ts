/** Bench servers run in child processes, so the load generator never shares their event loop. */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";

export interface Child<T> {
  info: T;
  process: ChildProcess;
  /** CPU time the child has used so far, in microseconds (user + system). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Call in a child: answers the parent's CPU-time questions. */
export function answerCpuQuestions(): void {
  process.on("message", (m) => {
    if (m === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    }
  });
}

export interface ChildOptions {
  /** Its stdout is a pipe read into nothing, as a log collector reads a service's (it logs every request). */
  discardStdout?: boolean;
  /** A bundled JavaScript module, run by node alone (as the artifact runs), not through tsx. */
  bundled?: boolean;
}

/** Starts a TypeScript module (or a bundle) as a child; it reports what it listens on with `process.send(info)`. */
export async function startChild<T>(
  module: URL,
  env: Record<string, string> = {},
  options: ChildOptions = {},
): Promise<Child<T>> {
  const child = fork(module, [], {
    execArgv: options.bundled ? [] : ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", options.discardStdout ? "pipe" : "inherit", "inherit", "ipc"],
  });
  child.stdout?.resume();
  const [info] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) =>
      Promise.reject(new Error(`${module.pathname} exited with ${code} before it was ready`)),
    ),
  ])) as [T];
  return {
    info,
    process: child,
    async cpu() {
      child.send("cpu");
      const [answer] = (await once(child, "message")) as [{ cpu: number }];
      return answer.cpu;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
