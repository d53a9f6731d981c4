/**
 * The pack as the Pulumi CLI runs it: @pulumi/pulumi's policy-pack runner started in the pack's
 * folder, answering the engine's Analyzer calls over gRPC (a preview's only way in).
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");
const { AnalyzerClient } = require("@pulumi/pulumi/proto/analyzer_grpc_pb.js");
export const pb = require("@pulumi/pulumi/proto/analyzer_pb.js");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb.js");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js");

export interface Diagnostic {
  policy: string;
  message: string;
  level: number;
}

export interface RunningPack {
  info(): Promise<{ name: string; policies: Array<[string, number]> }>;
  analyze(type: string, name: string, props: Record<string, unknown>, protect: boolean): Promise<Diagnostic[]>;
  stop(): void;
}

/**
 * Starts `runner` (a run-policy-pack script) in `dir` and connects to the port it prints; refused
 * after `timeoutMs` so a pack that never loads fails the test instead of stalling it.
 */
export async function startPack(runner: string, dir: string, timeoutMs = 60_000): Promise<RunningPack> {
  // The engine address is only used for logs; none is listening in the test.
  const pack = spawn(process.execPath, [runner, "127.0.0.1:1", "."], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  pack.stderr.on("data", (d) => (stderr += d));
  let timer: NodeJS.Timeout | undefined;
  const port = await new Promise<string>((resolve, reject) => {
    pack.stdout.once("data", (d) => resolve(String(d).trim()));
    pack.once("exit", (code) => reject(new Error(`the pack exited with ${code}: ${stderr}`)));
    timer = setTimeout(
      () => reject(new Error(`the pack printed no port within ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
  })
    .catch((err: Error) => {
      pack.kill();
      throw err;
    })
    .finally(() => clearTimeout(timer));
  const client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <T>(method: string, req: unknown): Promise<T> =>
    new Promise((resolve, reject) =>
      client[method](req, { deadline: Date.now() + timeoutMs }, (err: Error | null, res: T) =>
        err ? reject(err) : resolve(res),
      ),
    );
  return {
    async info() {
      const res = await call<any>("getAnalyzerInfo", new Empty());
      return {
        name: res.getName(),
        policies: res.getPoliciesList().map((p: any) => [p.getName(), p.getEnforcementlevel()]),
      };
    },
    async analyze(type, name, props, protect) {
      const req = new pb.AnalyzeRequest();
      req.setType(type);
      req.setName(name);
      req.setUrn(`urn:pulumi:test::agentport::${type}::${name}`);
      req.setProperties(Struct.fromJavaScript(props));
      req.setOptions(new pb.AnalyzerResourceOptions().setProtect(protect));
      const res = await call<any>("analyze", req);
      return res
        .getDiagnosticsList()
        .map((d: any) => ({ policy: d.getPolicyname(), message: d.getMessage(), level: d.getEnforcementlevel() }));
    },
    stop() {
      client.close();
      pack.kill();
    },
  };
}
