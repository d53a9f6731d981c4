import { describe, expect, it } from "vitest";
import { readStackFile } from "../../infra/plan/stack-file.js";
import { isSensitivePath } from "../../infra/stack/sensitive.js";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { serviceSettings } from "../../infra/api/settings.js";
import { rawStack, specOf, STACKS } from "./fixtures.js";

const issuesOf = (stack: string, edit: (raw: Record<string, any>) => void): Issue[] => {
  const raw = rawStack(stack);
  edit(raw);
  const v = validateStack(raw);
  return v.ok ? [] : v.issues;
};
const paths = (issues: Issue[]) => issues.map((i) => i.path);

describe("stack validation", () => {
  it.each(STACKS)("accepts the %s stack", (stack) => {
    const v = validateStack(rawStack(stack));
    expect(v.ok ? [] : v.issues).toEqual([]);
  });

  it("reports every problem at once, each by parameter path", () => {
    const issues = issuesOf("local", (r) => {
      r.company.language = "fr";
      r.cache = { architecture: "cluster" };
      r.docdb = { architecture: "sharded" };
      r.smtp.service = { type: "Ingress", port: 70000 };
      r.monitoring.opentelemetry = { samplerRatio: 1.5 };
      r.monitoring.traces = { logLevel: "verbose" };
      r.objstore.mode = "replicated";
    });
    expect(paths(issues)).toEqual(
      expect.arrayContaining([
        "company.language",
        "cache.architecture",
        "docdb.architecture",
        "smtp.service.type",
        "smtp.service.port",
        "monitoring.opentelemetry.samplerRatio",
        "monitoring.traces.logLevel",
        "objstore.mode",
      ]),
    );
    expect(issues.find((i) => i.path === "company.language")?.message).toMatch(/ja, en/);
  });

  it("rejects storage.provider outside S3, AzureStorage, Minio", () => {
    expect(paths(issuesOf("local", (r) => (r.storage.provider = "GCS")))).toContain("storage.provider");
  });

  it("rejects a cloud-B region other than ap-northeast-1", () => {
    const issues = issuesOf("staging-aws", (r) => (r.storage.secret.cloudb.REGION = "us-east-1"));
    expect(issues).toContainEqual(
      expect.objectContaining({
        path: "storage.secret.cloudb.REGION",
        message: expect.stringMatching(/ap-northeast-1/),
      }),
    );
  });

  it("rejects fixed values changed: vector sslMode, objstore path style, a mq host with scheme or port", () => {
    const issues = issuesOf("onprem", (r) => {
      r.externalVectordb.sslMode = "require";
      r.storage.secret = { objstore: { FORCE_PATH_STYLE: "false" } };
      r.externalMq.host = "amqps://rabbitmq.corp:5671";
    });
    expect(paths(issues)).toEqual(
      expect.arrayContaining([
        "externalVectordb.sslMode",
        "storage.secret.objstore.FORCE_PATH_STYLE",
        "externalMq.host",
      ]),
    );
  });

  it("keeps objstore.replicas consistent with objstore.mode, and the only pod count of the objstore", () => {
    const message = (edit: (r: any) => void) => issuesOf("local", edit).map((i) => `${i.path}: ${i.message}`);
    expect(message((r) => (r.objstore = { mode: "standalone", replicas: 4 }))).toEqual([
      "objstore.replicas: must be 1 in standalone mode (one server)",
    ]);
    expect(message((r) => (r.objstore = { mode: "distributed", replicas: 2 }))).toEqual([
      "objstore.replicas: must be at least 4 in distributed mode",
    ]);
    expect(message((r) => (r.objstore = { mode: "distributed", replicaCount: 4 }))).toEqual([
      "objstore.replicaCount: is not an objstore parameter: set objstore.replicas",
    ]);
    expect(message((r) => (r.objstore = { mode: "distributed" }))).toEqual([]);
  });

  it("rejects placeholders left in used values, and ignores them in unused ones", () => {
    const issues = issuesOf("local", (r) => {
      r.company.name = "<REPLACE_WITH_YOUR_COMPANY_NAME>";
      r.frontend.env.REACT_APP_CLIENT_ID = "PLACEHOLDER_VALUE";
      r.auditLogs = { enabled: false, outputs: { clouda_blob: { env: { BLOB_KEY: "<REPLACE_WITH_YOUR_KEY>" } } } };
    });
    expect(issues).toContainEqual({ path: "company.name", message: expect.stringMatching(/placeholder/) });
    expect(paths(issues)).toContain("frontend.env.REACT_APP_CLIENT_ID");
    expect(paths(issues).filter((p) => p.startsWith("auditLogs"))).toEqual([]);
  });

  it("takes URLs as URLs and e-mail addresses as addresses", () => {
    const issues = issuesOf("local", (r) => {
      r.frontend.env.REACT_APP_BROADCASTER_WS_URL = "broadcaster:8080";
      r.company.pages = { ...r.company.pages, terms_of_service_url: "example.com/terms" };
      r.mailer.default_from_email = "noreply";
    });
    expect(paths(issues)).toEqual(
      expect.arrayContaining([
        "frontend.env.REACT_APP_BROADCASTER_WS_URL",
        "company.pages.terms_of_service_url",
        "mailer.default_from_email",
      ]),
    );
    expect(
      paths(issuesOf("local", (r) => (r.frontend.env.REACT_APP_BROADCASTER_WS_URL = "wss://chat.example.com/ws"))),
    ).toEqual([]);
  });

  it("recognises placeholders whatever their case", () => {
    const issues = issuesOf("local", (r) => {
      r.company.name = "<replace_with_your_company_name>";
      r.company.brand_name = "Placeholder_Value";
    });
    expect(paths(issues)).toEqual(expect.arrayContaining(["company.name", "company.brand_name"]));
  });

  it("requires the vendor-supplied frontend values (their package default is PLACEHOLDER_VALUE)", () => {
    const issues = issuesOf("local", (r) => delete r.frontend);
    expect(paths(issues)).toEqual(
      expect.arrayContaining(["frontend.env.REACT_APP_CLIENT_ID", "frontend.env.REACT_APP_CLIENT_SECRET"]),
    );
  });

  it.each([
    ["external sqldb without host", "onprem", (r: any) => delete r.externalSqldb.host, "externalSqldb.host"],
    [
      "external docdb without URI",
      "onprem",
      (r: any) => delete r.externalDocdb.mongodb_uri,
      "externalDocdb.mongodb_uri",
    ],
    [
      "S3 without bucket names",
      "staging-aws",
      (r: any) => delete r.storage.secret.cloudb.ULTRON_BUCKET,
      "storage.secret.cloudb.ULTRON_BUCKET",
    ],
    [
      "AzureStorage without containers",
      "prod-azure",
      (r: any) => delete r.storage.secret.clouda.PUBLIC_CONTAINER,
      "storage.secret.clouda.PUBLIC_CONTAINER",
    ],
    [
      "clouda mode without key",
      "prod-azure",
      (r: any) => delete r.llm.secretKeys.clouda.KEY,
      "llm.secretKeys.clouda.KEY",
    ],
    [
      "direct mode without API key",
      "local",
      (r: any) => delete r.llm.secretKeys.direct.API_KEY,
      "llm.secretKeys.direct.API_KEY",
    ],
    [
      "clouda translator without key",
      "prod-azure",
      (r: any) => delete r.credentials.translator.clouda.TRANSLATOR_TEXT_KEY,
      "credentials.translator.clouda.TRANSLATOR_TEXT_KEY",
    ],
    ["smtp on without hostname", "local", (r: any) => delete r.smtp.config.hostname, "smtp.config.hostname"],
    [
      "no smtp and no mailer address",
      "staging-aws",
      (r: any) => delete r.mailer.smtp_settings.address,
      "mailer.smtp_settings.address",
    ],
    [
      "objstore console without domain",
      "onprem",
      (r: any) => delete r.ingress.objstore.console.domainName,
      "ingress.objstore.console.domainName",
    ],
    [
      "audit output without env",
      "prod-aws",
      (r: any) => delete r.auditLogs.outputs.cloudb_s3.env.BUCKET,
      "auditLogs.outputs.cloudb_s3.env.BUCKET",
    ],
    ["managed on aws without VPC", "staging-aws", (r: any) => delete r.cloud.aws.vpcId, "cloud.aws.vpcId"],
    [
      "managed postgres on azure without delegated subnet",
      "prod-azure",
      (r: any) => delete r.cloud.azure.postgresSubnetId,
      "cloud.azure.postgresSubnetId",
    ],
    [
      "registry login without password",
      "local",
      (r: any) => delete r.registryCredentials.password,
      "registryCredentials.password",
    ],
    [
      "logs in azure without account",
      "prod-azure",
      (r: any) => delete r.monitoring.logs.storage.clouda.accountName,
      "monitoring.logs.storage.clouda.accountName",
    ],
  ])("rejects a missing conditional: %s", (_name, stack, edit, path) => {
    const issues = issuesOf(stack, edit);
    expect(issues).toContainEqual({ path, message: expect.stringMatching(/required/) });
  });

  it("says Azure has no managed RabbitMQ", () => {
    const issues = issuesOf("prod-azure", (r) => (r.data.mq = "managed"));
    expect(issues).toContainEqual({ path: "data.mq", message: expect.stringMatching(/no managed RabbitMQ/) });
  });

  it("refuses to open data services to the internet", () => {
    expect(paths(issuesOf("staging-aws", (r) => (r.cloud.aws.clientCidrs = ["0.0.0.0/0"])))).toContain(
      "cloud.aws.clientCidrs[0]",
    );
  });

  it("rejects secrets that break the required equalities", () => {
    const issues = issuesOf("local", (r) => {
      r.automation = { env: { PUBLIC_LLM_INTERNAL_SECRET: "a".repeat(32) } };
      r.ultron = { secret: { PUBLIC_LLM_INTERNAL_SECRET: "b".repeat(32) } };
      r.credentials.graphql = { GRAPHQL_ADMIN_SECRET: "c".repeat(32) };
      r.credentials.boost = { SERVICE_BOOST_AUTO_API_KEY: "d".repeat(32) };
    });
    expect(paths(issues)).toEqual(
      expect.arrayContaining([
        "ultron.secret.PUBLIC_LLM_INTERNAL_SECRET",
        "credentials.boost.SERVICE_BOOST_AUTO_API_KEY",
      ]),
    );
  });

  it("rejects a heartbeat at or above the gateway read timeout, and a body limit below the file limit", () => {
    const issues = issuesOf("local", (r) => {
      r.api.heartbeatSeconds = 60;
      r.gateway = { env: { client_max_body_size: "100m" } };
    });
    expect(paths(issues)).toEqual(expect.arrayContaining(["api.heartbeatSeconds", "gateway.env.client_max_body_size"]));
  });

  it("validates inline agents with the service's own rules, naming the agent", () => {
    const issues = issuesOf("prod-aws", (r) => {
      r.api.agents = [
        { id: "support", kind: "llm" },
        { id: "docs", kind: "files", max_results: 99 },
        { id: "docs", kind: "synthetic", tokens: 5 },
      ];
      r.api.agentsFile = "/etc/x.yaml";
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "api.agents[0]", message: "field 'model' is required" },
        { path: "api.agents[1]", message: expect.stringContaining("max_results") },
        { path: "api.agents[2]", message: "id 'docs' is already used by agents[1]" },
        { path: "api.agentsFile", message: "set either api.agents or api.agentsFile, not both" },
      ]),
    );
  });

  it("refuses inline agents that name environment variables the deployed pods do not have", () => {
    const issues = issuesOf("prod-aws", (r) => {
      r.api.agents = [
        { id: "a", kind: "llm", model: "m", api_key_env: "OPENAI_KEY" },
        { id: "b", kind: "llm", model: "m", base_url_env: "UPSTREAM_URL" },
      ];
    });
    expect(issues).toEqual([
      { path: "api.agents[0].api_key_env", message: expect.stringContaining("no variable 'OPENAI_KEY'") },
      { path: "api.agents[1].base_url_env", message: expect.stringContaining("set 'base_url' itself") },
    ]);
  });

  it("refuses an API image that can move under the same name, and asks for one of image or build", () => {
    for (const image of [
      "ghcr.io/example/agentport:latest",
      "ghcr.io/example/agentport:0.1",
      "ghcr.io/example/agentport",
    ]) {
      expect(
        issuesOf("onprem", (r) => (r.api.image = image)),
        image,
      ).toEqual([{ path: "api.image", message: expect.stringContaining("pin it by digest") }]);
    }
    expect(issuesOf("onprem", (r) => (r.api.image = "ghcr.io/example/agentport:1.2.3"))).toEqual([]);
    expect(paths(issuesOf("onprem", (r) => delete r.api.image))).toEqual(["api.image"]);
    expect(
      paths(issuesOf("local", (r) => (r.api.image = `ghcr.io/example/agentport@sha256:${"a".repeat(64)}`))),
    ).toEqual(["api.build"]);
    expect(paths(issuesOf("local", (r) => delete r.api.registry))).toEqual(["api.registry"]);
  });

  it("refuses pods that would pull a built image with the registry's push credentials", () => {
    expect(issuesOf("prod-azure", (r) => delete r.api.registry.pull)).toEqual([
      { path: "api.registry.pull", message: expect.stringContaining("pull-only") },
    ]);
    expect(issuesOf("prod-azure", (r) => (r.api.registry.pull.username = r.api.registry.username))).toEqual([
      { path: "api.registry.pull", message: expect.stringContaining("other credentials") },
    ]);
    expect(paths(issuesOf("prod-azure", (r) => delete r.api.registry.password))).toEqual(["api.registry"]);
    expect(issuesOf("onprem", () => {})).toEqual([]); // a pinned image: the registry's credentials only pull
  });

  it("takes the chart from an https or oci:// source, with credentials of its own", () => {
    expect(issuesOf("local", (r) => (r.platform.repository = "oci://registry.example.com/charts"))).toEqual([]);
    expect(paths(issuesOf("local", (r) => (r.platform.repository = "ftp://charts.example.com")))).toEqual([
      "platform.repository",
    ]);
    expect(
      issuesOf(
        "local",
        (r) =>
          (r.platform.chartCredentials = {
            username: "u",
            password: "secret-standin:platform.chartCredentials.password",
          }),
      ),
    ).toEqual([]);
  });

  it("asks the API host for a certificate of its own where the platform serves TLS from Ingress secrets", () => {
    expect(issuesOf("onprem", (r) => (r.api.tls = []))).toEqual([
      { path: "api.tls", message: expect.stringContaining("cert-manager") },
    ]);
    expect(issuesOf("prod-azure", (r) => (r.api.tls = []))).toEqual([]); // cert-manager issues it
  });

  it("takes the API's CORS origins as origins only, and renders them as CORS_ORIGINS", () => {
    expect(
      paths(
        issuesOf(
          "prod-aws",
          (r) => (r.api.corsOrigins = ["https://app.example.com/", "ftp://x.example.com", "app.example.com"]),
        ),
      ),
    ).toEqual(["api.corsOrigins[0]", "api.corsOrigins[1]", "api.corsOrigins[2]"]);
    const spec = specOf("prod-aws", (r) => (r.api.corsOrigins = ["https://app.example.com", "http://localhost:5173"]));
    expect(serviceSettings(spec).env.CORS_ORIGINS).toBe("https://app.example.com,http://localhost:5173");
    expect(serviceSettings(specOf("prod-aws")).env.CORS_ORIGINS).toBeUndefined();
  });

  it("renders the API's default per-key limits as RATE_LIMIT_RPM and RATE_LIMIT_TPM, positive integers only", () => {
    expect(paths(issuesOf("prod-aws", (r) => Object.assign(r.api, { rateLimitRpm: 0, rateLimitTpm: 1.5 })))).toEqual([
      "api.rateLimitRpm",
      "api.rateLimitTpm",
    ]);
    // Past what the service accepts at start: refused here, not a crash-looping pod.
    expect(
      paths(issuesOf("prod-aws", (r) => Object.assign(r.api, { rateLimitRpm: 2 ** 31, rateLimitTpm: 3e9 }))),
    ).toEqual(["api.rateLimitRpm", "api.rateLimitTpm"]);
    const env = serviceSettings(
      specOf("prod-aws", (r) => Object.assign(r.api, { rateLimitRpm: 600, rateLimitTpm: 200_000 })),
    ).env;
    expect([env.RATE_LIMIT_RPM, env.RATE_LIMIT_TPM]).toEqual(["600", "200000"]);
    expect(serviceSettings(specOf("prod-aws")).env.RATE_LIMIT_TPM).toBeUndefined();
  });

  it("renders api.responsesRetentionDays as RESPONSES_RETENTION_DAYS, 0 included, within what the service accepts", () => {
    expect(paths(issuesOf("prod-aws", (r) => Object.assign(r.api, { responsesRetentionDays: -1 })))).toEqual([
      "api.responsesRetentionDays",
    ]);
    expect(paths(issuesOf("prod-aws", (r) => Object.assign(r.api, { responsesRetentionDays: 36_501 })))).toEqual([
      "api.responsesRetentionDays",
    ]);
    expect(
      serviceSettings(specOf("prod-aws", (r) => Object.assign(r.api, { responsesRetentionDays: 0 }))).env
        .RESPONSES_RETENTION_DAYS,
    ).toBe("0");
    expect(
      serviceSettings(specOf("prod-aws", (r) => Object.assign(r.api, { responsesRetentionDays: 7 }))).env
        .RESPONSES_RETENTION_DAYS,
    ).toBe("7");
    expect(serviceSettings(specOf("prod-aws")).env.RESPONSES_RETENTION_DAYS).toBeUndefined();
  });

  it("rejects unknown keys, so a typo is not silently ignored", () => {
    const issues = issuesOf("local", (r) => {
      r.company.langauge = "en";
      r.monitorng = {};
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "company.langauge", message: "unknown parameter" },
        {
          path: "monitorng",
          message: "unknown top-level key (agentport:monitorng); did you mean agentport:monitoring?",
        },
      ]),
    );
  });

  it("rejects a storage setting that disagrees with storage.provider", () => {
    const issues = issuesOf("staging-aws", (r) => (r.ultron = { env: { STORAGE_DISK: "minio" } }));
    expect(paths(issues)).toContain("ultron.env.STORAGE_DISK");
  });

  it.each(STACKS)("stack %s gives every sensitive parameter only as a secure: value", (stack) => {
    const file = readStackFile(stack);
    const plain: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (typeof v === "string") {
        if (!v.startsWith("secret-standin:") && isSensitivePath(path)) plain.push(path);
      } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    };
    for (const [key, value] of Object.entries(file.config))
      if (key.startsWith("agentport:")) walk(value, key.slice("agentport:".length));
    expect(plain).toEqual([]);
  });
});
