/**
 * The pack as the Pulumi CLI runs it: @pulumi/pulumi's policy-pack runner started in infra/policy,
 * answering the engine's Analyzer calls over gRPC (a preview's only way in).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");
const { AnalyzerClient } = require("@pulumi/pulumi/proto/analyzer_grpc_pb.js");
const pb = require("@pulumi/pulumi/proto/analyzer_pb.js");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb.js");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js");

/** How the engine spells a string it cannot know at preview. */
const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let pack: ChildProcess;
let client: any;
const call = <T>(method: string, req: unknown): Promise<T> =>
  new Promise((resolve, reject) => client[method](req, (err: Error | null, res: T) => (err ? reject(err) : resolve(res))));

beforeAll(async () => {
  // The engine address is only used for logs; none is listening in the test.
  pack = spawn(process.execPath, [require.resolve("@pulumi/pulumi/cmd/run-policy-pack"), "127.0.0.1:1", "."], { cwd: "infra/policy", stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  pack.stderr!.on("data", (d) => (stderr += d));
  const port = await new Promise<string>((resolve, reject) => {
    pack.stdout!.once("data", (d) => resolve(String(d).trim()));
    pack.once("exit", (code) => reject(new Error(`the pack exited with ${code}: ${stderr}`)));
  });
  client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});
afterAll(() => {
  client?.close();
  pack?.kill();
});

function analyze(type: string, name: string, props: Record<string, unknown>, protect: boolean) {
  const req = new pb.AnalyzeRequest();
  req.setType(type);
  req.setName(name);
  req.setUrn(`urn:pulumi:test::agentport::${type}::${name}`);
  req.setProperties(Struct.fromJavaScript(props));
  req.setOptions(new pb.AnalyzerResourceOptions().setProtect(protect));
  return call<any>("analyze", req).then((res) => res.getDiagnosticsList().map((d: any) => ({ policy: d.getPolicyname(), message: d.getMessage(), level: d.getEnforcementlevel() })));
}

describe("the policy pack, run as the Pulumi CLI runs it", () => {
  it("loads and lists its policies, each mandatory", async () => {
    const info = await call<any>("getAnalyzerInfo", new Empty());
    expect(info.getName()).toBe("agentport");
    const policies = info.getPoliciesList().map((p: any) => [p.getName(), p.getEnforcementlevel()]);
    expect(policies.map((p: [string, number]) => p[0])).toEqual([
      "no-placeholder-values",
      "secret-lengths",
      "stateful-resources-protected",
      "managed-endpoints-tls",
      "cloudb-bucket-region",
      "storage-not-public",
    ]);
    expect(new Set(policies.map((p: [string, number]) => p[1]))).toEqual(new Set([pb.EnforcementLevel.MANDATORY]));
  });

  it("refuses an unprotected database, naming it", async () => {
    const found = await analyze("aws:rds/instance:Instance", "data-sqldb", { engine: "postgres" }, false);
    expect(found).toEqual([{ policy: "stateful-resources-protected", message: expect.stringContaining("data-sqldb"), level: pb.EnforcementLevel.MANDATORY }]);
  });

  it("checks the known secrets of a release while others are still unknown", async () => {
    const values = { jwt: { secret: "short" }, credentials: { boost: { SERVICE_BOOST_API_KEY_MAIN: UNKNOWN_STRING } } };
    const found = await analyze("kubernetes:helm.sh/v3:Release", "platform-chart", { values }, true);
    expect(found).toEqual([{ policy: "secret-lengths", message: expect.stringMatching(/platform-chart.*values\.jwt\.secret is 5 characters.*at least 64/), level: pb.EnforcementLevel.MANDATORY }]);
  });
});
