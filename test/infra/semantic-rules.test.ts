/** The reference's semantic rules, each refused by the validator naming the parameter path. */
import { describe, expect, it } from "vitest";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { rawStack } from "./fixtures.js";

const issuesOf = (
  stack: string,
  edit: (raw: Record<string, any>) => void,
  isSecure?: (path: string) => boolean,
): Issue[] => {
  const raw = rawStack(stack);
  edit(raw);
  const v = validateStack(raw, isSecure ? { isSecure } : {});
  return v.ok ? [] : v.issues;
};
const paths = (issues: Issue[]) => issues.map((i) => i.path);
const secret = (path: string) => `secret-standin:${path}`;
const ACM = "service.beta.kubernetes.io/aws-load-balancer-ssl-cert";

describe("TLS is required", () => {
  it("on aws: the ACM certificate in gateway.proxy.annotations", () => {
    const issues = issuesOf("prod-aws", (r) => delete r.gateway.proxy.annotations[ACM]);
    expect(issues).toEqual([{ path: `gateway.proxy.annotations.${ACM}`, message: expect.stringContaining("ACM") }]);
  });

  it("on azure: a certificate manager on ingress.annotations", () => {
    const issues = issuesOf("prod-azure", (r) => delete r.ingress.annotations["cert-manager.io/cluster-issuer"]);
    expect(paths(issues)).toContain("ingress.annotations");
  });

  it("elsewhere: certificates in ingress.tls, or a certificate manager", () => {
    expect(paths(issuesOf("local", (r) => delete r.ingress.annotations["cert-manager.io/cluster-issuer"]))).toEqual([
      "ingress.tls",
    ]);
    expect(paths(issuesOf("onprem", (r) => (r.ingress.tls = [])))).toContain("ingress.tls");
  });
});

describe("Required keys of the LLM providers", () => {
  it.each([
    ["direct", "local", "llm.secretKeys.direct.VISION_KEY", (r: any) => delete r.llm.secretKeys.direct.VISION_KEY],
    [
      "direct",
      "local",
      "llm.secretKeys.direct.EMBEDDING_KEY",
      (r: any) => delete r.llm.secretKeys.direct.EMBEDDING_KEY,
    ],
    [
      "direct",
      "local",
      "llm.secretKeys.direct.MAIN_MODEL_NAME",
      (r: any) => delete r.llm.secretKeys.direct.MAIN_MODEL_NAME,
    ],
    [
      "clouda",
      "prod-azure",
      "llm.secretKeys.clouda.INSTANCE_NAME",
      (r: any) => delete r.llm.secretKeys.clouda.INSTANCE_NAME,
    ],
  ])("AI_MODE %s demands %s", (_mode, stack, path, edit) => {
    expect(issuesOf(stack, edit)).toContainEqual({ path, message: expect.stringMatching(/required/) });
  });

  it("clouda demands at least one boost instance", () => {
    const issues = issuesOf("prod-azure", (r) => (r.credentials.boost = {}));
    expect(paths(issues)).toContain("credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_<MODEL>");
  });

  it("a further provider in use needs all its Required keys (managed: both regions' key pairs)", () => {
    const issues = issuesOf(
      "local",
      (r) =>
        (r.llm.secretKeys.managed = { CONVERSE_ACCESS_KEY_ID: secret("a"), CONVERSE_SECRET_ACCESS_KEY: secret("b") }),
    );
    expect(paths(issues).sort()).toEqual([
      "llm.secretKeys.managed.CONVERSE_GLOBAL_ACCESS_KEY_ID",
      "llm.secretKeys.managed.CONVERSE_GLOBAL_SECRET_ACCESS_KEY",
    ]);
  });
});

describe("Required credentials", () => {
  it("error tracking on demands SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN and the server token", () => {
    const issues = issuesOf(
      "local",
      (r) => (r.credentials.errortracker = { post_client_item_access_token: secret("c") }),
    );
    expect(paths(issues).sort()).toEqual([
      "credentials.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN",
      "credentials.errortracker.post_server_item_access_token",
    ]);
  });

  it("a git host integration demands its app name, client id and secret", () => {
    const issues = issuesOf("local", (r) => (r.credentials.githost_a = { app_name: "platform" }));
    expect(paths(issues).sort()).toEqual(["credentials.githost_a.client_id", "credentials.githost_a.client_secret"]);
  });
});

describe("boost cloud-tenant instances", () => {
  const key = (suffix: string) => `credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_${suffix}`;
  const withInstance = (suffix: string, value: string) => (r: any) =>
    (r.credentials.boost[`SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_${suffix}`] = value);
  // Values are checked where they can be read: the tests give them as isSecure so only the form is judged.
  const all = () => true;

  it("takes a model suffix from the reference's list only", () => {
    const issues = issuesOf("prod-azure", withInstance("2_GPT9", "x"), all);
    expect(issues).toEqual([{ path: key("2_GPT9"), message: expect.stringContaining("ADA, 4O") }]);
    expect(paths(issuesOf("prod-azure", withInstance("X_4O", "x"), all))).toEqual([key("X_4O")]);
  });

  it("takes the value behavior=clouda,url=…,headers={…},query_params={…} only", () => {
    const good =
      "behavior=clouda,url=https://tenant.example.com/openai/deployments/gpt-4o,headers={api-key: k},query_params={api-version: 2024-10-21}";
    expect(issuesOf("prod-azure", withInstance("2_4O", good), all)).toEqual([]);
    for (const bad of [
      "url=https://x.example.com",
      "behavior=clouda,url=not a url,headers={},query_params={}",
      "behavior=clouda,url=https://x.example.com,headers={}",
    ]) {
      expect(paths(issuesOf("prod-azure", withInstance("2_4O", bad), all)), bad).toEqual([key("2_4O")]);
    }
  });
});

describe("URLs and e-mail addresses", () => {
  it.each([
    [
      "frontend.env.REACT_APP_BROADCASTER_WS_URL",
      (r: any) => (r.frontend.env.REACT_APP_BROADCASTER_WS_URL = "https://platform.localtest.me/broadcast"),
    ],
    ["company.pages.terms_of_service_url", (r: any) => (r.company.pages.terms_of_service_url = "localtest.me/terms")],
    [
      "company.pages.privacy_policy_url",
      (r: any) => (r.company.pages.privacy_policy_url = "https://<your-domain>/privacy"),
    ],
    [
      "boost.env.SERVICE_BOOST_SEARCH_URL",
      (r: any) => (r.boost = { env: { SERVICE_BOOST_SEARCH_URL: "search.localtest.me" } }),
    ],
    ["mailer.default_from_email", (r: any) => (r.mailer.default_from_email = "noreply at localtest.me")],
    ["registryCredentials.email", (r: any) => (r.registryCredentials.email = "dev@")],
  ])("refuses a malformed %s", (path, edit) => {
    expect(paths(issuesOf("local", edit))).toEqual([path]);
  });

  it("accepts a wss:// broadcaster URL", () => {
    expect(
      issuesOf("local", (r) => (r.frontend.env.REACT_APP_BROADCASTER_WS_URL = "wss://platform.localtest.me/broadcast")),
    ).toEqual([]);
  });
});

describe("placeholders", () => {
  it("are refused in any letter case, wherever a used value holds one", () => {
    const issues = issuesOf("local", (r) => {
      r.company.brand_name = "<replace_with_your_brand>";
      r.frontend.env.REACT_APP_CLIENT_ID = "placeholder_value";
      r.smtp.config.hostname = "<Replace_With_Your_Smtp_Host>";
    });
    expect(paths(issues).sort()).toEqual([
      "company.brand_name",
      "frontend.env.REACT_APP_CLIENT_ID",
      "smtp.config.hostname",
    ]);
  });
});

describe("secrets of the reference", () => {
  it.each([
    ["jwt.secret", (r: any) => (r.jwt = { secret: "x".repeat(64) })],
    ["registryCredentials.password", (r: any) => (r.registryCredentials.password = "hunter2")],
    ["llm.secretKeys.direct.API_KEY", (r: any) => (r.llm.secretKeys.direct.API_KEY = "sk-plain")],
    ["mq.auth.erlangCookie", (r: any) => (r.mq = { auth: { erlangCookie: "cookie" } })],
    [
      "ultron.secret.CLI_ZIPPER_PRIVATE_KEY",
      (r: any) => (r.ultron = { secret: { CLI_ZIPPER_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nx" } }),
    ],
    ["docdb.auth.passwords[0]", (r: any) => (r.docdb = { auth: { passwords: ["p"] } })],
  ])("refuses %s in plaintext", (path, edit) => {
    expect(issuesOf("local", edit)).toContainEqual({ path, message: expect.stringContaining("plaintext") });
  });

  it("accepts them as secure: entries, as the reader under Pulumi reports them by path", () => {
    expect(
      issuesOf(
        "local",
        (r) => (r.jwt = { secret: "x".repeat(64) }),
        (p) => p === "jwt.secret",
      ),
    ).toEqual([]);
  });
});

describe("vector store credentials", () => {
  it("are vectordb.postgresql.*: a stack using the must-override list's vectordb.sqldb.* is told where they go", () => {
    const issues = issuesOf("local", (r) => (r.vectordb = { sqldb: { password: secret("v") } }));
    expect(issues).toEqual([
      { path: "vectordb.sqldb", message: expect.stringContaining("vectordb.postgresql.username") },
    ]);
    expect(issuesOf("local", (r) => (r.vectordb = { postgresql: { username: "vec", password: secret("v") } }))).toEqual(
      [],
    );
  });
});

describe("managed data durability parameters", () => {
  it("refuses PostgreSQL high availability on the Burstable tier, and retention outside Azure's 7-35 days", () => {
    const issues = issuesOf("prod-azure", (r) =>
      Object.assign(r.data.azure, { postgresTier: "Burstable", postgresBackupRetentionDays: 40 }),
    );
    expect(issues).toEqual([{ path: "data.azure.postgresBackupRetentionDays", message: "must be between 7 and 35" }]);
    expect(issuesOf("prod-azure", (r) => (r.data.azure.postgresTier = "Burstable"))).toEqual([
      {
        path: "data.azure.postgresHighAvailability",
        message: expect.stringContaining("no high availability on Burstable"),
      },
    ]);
  });
  it("refuses an ElastiCache snapshot retention over 35 days", () => {
    expect(paths(issuesOf("prod-aws", (r) => (r.data.aws.cacheSnapshotRetentionDays = 36)))).toEqual([
      "data.aws.cacheSnapshotRetentionDays",
    ]);
  });
});

describe("the API certificate's source namespace", () => {
  it("needs api.tls to name the Secrets it copies, and a namespace other than the API's", () => {
    expect(issuesOf("onprem", (r) => (r.api.tls = [{ hosts: ["api.agents.corp.example.com"] }]))).toContainEqual({
      path: "api.tlsSourceNamespace",
      message: expect.stringContaining("list them in api.tls"),
    });
    expect(issuesOf("onprem", (r) => (r.api.tlsSourceNamespace = "agentport"))).toEqual([
      { path: "api.tlsSourceNamespace", message: expect.stringContaining("must differ from api.namespace") },
    ]);
  });
});
