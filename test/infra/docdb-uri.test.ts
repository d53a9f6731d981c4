import { describe, expect, it } from "vitest";
import { docdbUri } from "../../infra/data/aws.js";
import { validateStack } from "../../infra/stack/validate.js";
import { rawStack } from "./fixtures.js";

const login = { username: "platform", password: "p@ss/word", database: "platform" };

describe("DocumentDB's URI (the platform's pods verify TLS against the CA the stack names)", () => {
  it("names the Amazon RDS CA file the stack says the pods have, and verifies TLS against it", () => {
    const uri = new URL(
      docdbUri("docdb.cluster-x.ap-northeast-1.docdb.amazonaws.com", login, "/etc/agentport-ca/aws-rds.pem"),
    );
    expect(uri.searchParams.get("tls")).toBe("true");
    expect(uri.searchParams.get("tlsCAFile")).toBe("/etc/agentport-ca/aws-rds.pem");
    expect(uri.searchParams.get("replicaSet")).toBe("rs0");
    expect(decodeURIComponent(uri.password)).toBe("p@ss/word");
    expect([...uri.searchParams.keys()]).not.toContain("tlsAllowInvalidCertificates");
  });
  it("adds no CA file unless the stack names one", () => {
    expect(new URL(docdbUri("h", login)).searchParams.has("tlsCAFile")).toBe(false);
  });
  it("refuses a CA file that is not an absolute path", () => {
    const raw = rawStack("prod-aws");
    raw.data.aws.docdbTlsCaFile = "aws-rds.pem";
    const v = validateStack(raw, {});
    expect(v.ok ? [] : v.issues.map((i) => i.path)).toEqual(["data.aws.docdbTlsCaFile"]);
  });
});
