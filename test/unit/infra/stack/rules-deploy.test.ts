/**
 * The deployment rules (where things run, data service modes, network placement, API limits),
 * run directly on valid stacks that each test breaks in one place: every problem is reported by
 * its parameter path with a message that says what to do.
 */
import { describe, expect, it } from "vitest";
import { deployRules } from "../../../../infra/stack/rules-deploy.js";
import { GROUP_NAMES, type StackSpec } from "../../../../infra/stack/schema.js";
import { specOf, STACKS } from "../../../infra/fixtures.js";

type Stack = (typeof STACKS)[number];
/** A stack to break: any field may be edited, as a stack file could. */
type Spec = Record<string, any>;
interface Issue {
  path: string;
  message: string;
}

const valid = new Map<Stack, StackSpec>();
const specFor = (stack: Stack): Spec => {
  if (!valid.has(stack)) valid.set(stack, specOf(stack));
  return structuredClone(valid.get(stack)!);
};

/** What the deployment rules report on the stack after `edit`. */
function issuesOf(stack: Stack, edit: (s: Spec) => void = () => {}): Issue[] {
  const s = specFor(stack);
  edit(s);
  const out: Issue[] = [];
  for (const r of deployRules) r.check(s as StackSpec, (path, message) => void out.push({ path, message }));
  return out;
}

/** Exactly these problems: each path with a message containing the fragment. */
const only = (...expected: Array<[string, string]>) =>
  expected.map(([path, fragment]) => ({ path, message: expect.stringContaining(fragment) }));

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe("the reference stacks", () => {
  it.each(STACKS)("%s breaks no deployment rule", (stack) => {
    expect(issuesOf(stack)).toEqual([]);
  });
});

describe("a rule reads only the groups it declares (it runs only once they parsed)", () => {
  const variants: Array<[Stack, (s: Spec) => void]> = [
    ...STACKS.map((st): [Stack, (s: Spec) => void] => [st, () => {}]),
    ["local", (s) => (s.api.agents = [{ id: "x" }])],
    ["local", (s) => (s.sqldb.enabled = false)],
    ["prod-azure", (s) => (s.storage.existingBuckets = true)],
  ];
  it.each(variants)("%s", (stack, edit) => {
    const s = specFor(stack);
    edit(s);
    for (const r of deployRules) {
      const fenced = Object.fromEntries(
        GROUP_NAMES.map((g) => [
          g,
          r.needs.includes(g)
            ? s[g]
            : new Proxy(
                {},
                {
                  get: () => {
                    throw new Error(`a rule reads ${g} without declaring it`);
                  },
                },
              ),
        ]),
      );
      expect(() => r.check(fenced as unknown as StackSpec, () => {})).not.toThrow();
    }
  });
});

describe("storage", () => {
  it("S3 with created buckets needs aws", () => {
    expect(issuesOf("staging-aws", (s) => (s.cloud.provider = "azure"))).toEqual(
      expect.arrayContaining(
        only(["cloud.provider", "must be aws (or none, on premises) when storage.provider is S3"]),
      ),
    );
  });

  it("S3 buckets that exist may live off AWS, with keys given", () => {
    const issues = issuesOf("staging-aws", (s) => {
      s.cloud.provider = "none";
      s.data.sqldb = s.data.cache = s.data.docdb = s.data.mq = s.data.vectordb = "inCluster";
      s.storage.existingBuckets = true;
      s.api.registry = { server: "registry.example.com", repository: "agentport" };
    });
    expect(issues).toEqual(
      only(["storage.secret.cloudb.ACCESS_KEY_ID", "off AWS"], ["storage.secret.cloudb.SECRET_ACCESS_KEY", "off AWS"]),
    );
    const withKeys = issuesOf("staging-aws", (s) => {
      s.cloud.provider = "none";
      s.data.sqldb = s.data.cache = s.data.docdb = s.data.mq = s.data.vectordb = "inCluster";
      s.storage.existingBuckets = true;
      s.api.registry = { server: "registry.example.com", repository: "agentport" };
      s.storage.secret.cloudb.ACCESS_KEY_ID = "AKIA";
      s.storage.secret.cloudb.SECRET_ACCESS_KEY = "secret";
    });
    expect(withKeys).toEqual([]);
  });

  it("S3 buckets that exist on AWS need no keys", () => {
    expect(issuesOf("staging-aws", (s) => (s.storage.existingBuckets = true))).toEqual([]);
  });

  it("S3 needs the region signed URLs are made for", () => {
    expect(issuesOf("staging-aws", (s) => (s.storage.secret.cloudb.REGION = "us-west-2"))).toEqual(
      only(["storage.secret.cloudb.REGION", "signed URLs"]),
    );
  });

  it("S3 needs every bucket, each a valid bucket name", () => {
    const issues = issuesOf("staging-aws", (s) => {
      delete s.storage.secret.cloudb.BUCKET;
      s.storage.secret.cloudb.PUBLIC_BUCKET = "Not_A_Bucket";
      s.storage.secret.cloudb.EXPORT_PROJECT_BUCKET = "ab";
      s.storage.secret.cloudb.ULTRON_BUCKET = "ok.bucket-1";
    });
    expect(issues).toEqual(
      only(
        ["storage.secret.cloudb.BUCKET", "is required when storage.provider is S3"],
        ["storage.secret.cloudb.PUBLIC_BUCKET", "valid S3 bucket name"],
        ["storage.secret.cloudb.EXPORT_PROJECT_BUCKET", "valid S3 bucket name"],
      ),
    );
  });

  it("a bucket name is 3 to 63 characters, starting and ending with a letter or digit", () => {
    const bucket = (name: string) =>
      issuesOf("staging-aws", (s) => (s.storage.secret.cloudb.ULTRON_BUCKET = name)).map((i) => i.path);
    expect(bucket("abc")).toEqual([]);
    expect(bucket("a".repeat(63))).toEqual([]);
    expect(bucket("a".repeat(64))).toEqual(["storage.secret.cloudb.ULTRON_BUCKET"]);
    expect(bucket("-abc")).toEqual(["storage.secret.cloudb.ULTRON_BUCKET"]);
    expect(bucket("abc-")).toEqual(["storage.secret.cloudb.ULTRON_BUCKET"]);
    expect(bucket("my bucket")).toEqual(["storage.secret.cloudb.ULTRON_BUCKET"]);
  });

  it("existingBuckets applies to S3 only", () => {
    expect(issuesOf("local", (s) => (s.storage.existingBuckets = true))).toEqual(
      only(["storage.existingBuckets", "S3 only"]),
    );
  });

  it("Azure storage needs azure and every container", () => {
    const issues = issuesOf("prod-azure", (s) => {
      s.cloud.provider = "none";
      s.data.sqldb = s.data.cache = s.data.docdb = s.data.vectordb = "inCluster";
      delete s.storage.secret.clouda.CONTAINER;
      delete s.storage.secret.clouda.PUBLIC_CONTAINER;
    });
    expect(issues).toEqual(
      only(
        ["cloud.provider", "must be azure when storage.provider is AzureStorage"],
        ["storage.secret.clouda.CONTAINER", "is required when storage.provider is AzureStorage"],
        ["storage.secret.clouda.PUBLIC_CONTAINER", "is required when storage.provider is AzureStorage"],
      ),
    );
  });

  it("Azure storage on azure needs the resource group", () => {
    expect(
      issuesOf("prod-azure", (s) => {
        s.data.sqldb = s.data.cache = s.data.docdb = s.data.vectordb = "inCluster";
        delete s.cloud.azure.resourceGroupName;
      }),
    ).toEqual(only(["cloud.azure.resourceGroupName", "when storage.provider is AzureStorage"]));
  });

  it("the objstore provider needs path-style URLs and us-east-1", () => {
    expect(
      issuesOf("local", (s) => {
        s.storage.secret.objstore.FORCE_PATH_STYLE = "false";
        s.storage.secret.objstore.REGION = "eu-west-1";
      }),
    ).toEqual(
      only(["storage.secret.objstore.FORCE_PATH_STYLE", '"true"'], ["storage.secret.objstore.REGION", "us-east-1"]),
    );
  });

  it("the objstore provider's settings are checked for that provider only", () => {
    expect(
      issuesOf("staging-aws", (s) => {
        s.storage.secret.objstore.FORCE_PATH_STYLE = "false";
        s.storage.secret.objstore.REGION = "eu-west-1";
      }),
    ).toEqual([]);
  });
});

describe("objstore", () => {
  it("is enabled only for the Minio provider", () => {
    expect(issuesOf("staging-aws", (s) => (s.objstore.enabled = true))).toEqual(
      only(["objstore.enabled", "must be false unless storage.provider is Minio"]),
    );
    expect(issuesOf("local", (s) => (s.objstore.enabled = true))).toEqual([]);
    expect(issuesOf("local", (s) => (s.objstore.enabled = false))).toEqual([]);
  });

  it("distributed mode needs at least 4 servers", () => {
    expect(issuesOf("onprem", (s) => (s.objstore.replicas = 3))).toEqual(only(["objstore.replicas", "at least 4"]));
    expect(issuesOf("onprem", (s) => (s.objstore.replicas = 4))).toEqual([]);
    expect(issuesOf("onprem", (s) => delete s.objstore.replicas)).toEqual([]);
  });

  it("standalone mode is one server", () => {
    expect(issuesOf("local", (s) => (s.objstore.replicas = 2))).toEqual(only(["objstore.replicas", "must be 1"]));
    expect(issuesOf("local", (s) => delete s.objstore.replicas)).toEqual([]);
  });

  it("replicaCount is not an objstore parameter", () => {
    expect(issuesOf("local", (s) => (s.objstore.replicaCount = 1))).toEqual(
      only(["objstore.replicaCount", "set objstore.replicas"]),
    );
  });
});

describe("storage settings that follow the provider", () => {
  it("STORAGE_DISK, when set, must be the provider's", () => {
    expect(issuesOf("local", (s) => (s.ultron.env.STORAGE_DISK = "minio"))).toEqual([]);
    expect(issuesOf("local", (s) => (s.ultron.env.STORAGE_DISK = "s3"))).toEqual(
      only(["ultron.env.STORAGE_DISK", "must be minio for storage.provider Minio"]),
    );
  });

  it("USE_CLOUDA, when set, must say whether the provider is Azure", () => {
    expect(issuesOf("prod-azure")).toEqual([]);
    expect(issuesOf("prod-azure", (s) => (s.document_converter.env.USE_CLOUDA = "false"))).toEqual(
      only(["document_converter.env.USE_CLOUDA", "must be true for storage.provider AzureStorage"]),
    );
    expect(issuesOf("local", (s) => (s.document_converter.env.USE_CLOUDA = "true"))).toEqual(
      only(["document_converter.env.USE_CLOUDA", "must be false for storage.provider Minio"]),
    );
    expect(issuesOf("local", (s) => (s.document_converter.env.USE_CLOUDA = "false"))).toEqual([]);
  });
});

describe("managed data services", () => {
  it("need a cloud", () => {
    expect(
      issuesOf("local", (s) => {
        s.data.sqldb = "managed";
        s.data.mq = "managed";
      }),
    ).toEqual(
      only(["data.sqldb", "managed needs cloud.provider aws or azure"], ["data.mq", "managed needs cloud.provider"]),
    );
  });

  it("Azure has no managed RabbitMQ", () => {
    expect(issuesOf("prod-azure", (s) => (s.data.mq = "managed"))).toEqual(only(["data.mq", "no managed RabbitMQ"]));
  });

  it("Azure's Burstable tier has no high availability", () => {
    expect(issuesOf("prod-azure", (s) => (s.data.azure.postgresTier = "Burstable"))).toEqual(
      only(["data.azure.postgresHighAvailability", "Burstable"]),
    );
    expect(
      issuesOf("prod-azure", (s) => {
        s.data.azure.postgresTier = "Burstable";
        s.data.azure.postgresHighAvailability = "Disabled";
      }),
    ).toEqual([]);
  });

  it("the Burstable rule is Azure's: a stack on aws may leave the azure settings as they are", () => {
    expect(issuesOf("staging-aws", (s) => (s.data.azure.postgresTier = "Burstable"))).toEqual([]);
  });

  it("on aws need the VPC", () => {
    expect(issuesOf("staging-aws", (s) => delete s.cloud.aws.vpcId)).toEqual(
      only(["cloud.aws.vpcId", "for managed data services on aws"]),
    );
  });

  it("on aws need at least two private subnets: one is refused, exactly two are enough", () => {
    expect(issuesOf("staging-aws", (s) => (s.cloud.aws.subnetIds = ["subnet-1"]))).toEqual(
      only(["cloud.aws.subnetIds", "at least two private subnets"]),
    );
    expect(issuesOf("staging-aws", (s) => (s.cloud.aws.subnetIds = ["subnet-1", "subnet-2"]))).toEqual([]);
  });

  it("on aws need the sources allowed to reach them: security groups or CIDRs", () => {
    expect(issuesOf("staging-aws", (s) => (s.cloud.aws.clientSecurityGroupIds = []))).toEqual(
      only(["cloud.aws.clientSecurityGroupIds", "the only sources allowed to reach data services"]),
    );
    expect(
      issuesOf("staging-aws", (s) => {
        s.cloud.aws.clientSecurityGroupIds = [];
        s.cloud.aws.clientCidrs = ["10.1.0.0/16"];
      }),
    ).toEqual([]);
  });

  it("on azure need the resource group, the endpoint subnet for cache or docdb, and PostgreSQL's network", () => {
    const issues = issuesOf("prod-azure", (s) => {
      s.storage.provider = "Minio"; // keep the storage rule's own resource-group check out of the way
      delete s.document_converter.env.USE_CLOUDA;
      delete s.cloud.azure.resourceGroupName;
      delete s.cloud.azure.subnetId;
      delete s.cloud.azure.postgresSubnetId;
      delete s.cloud.azure.postgresPrivateDnsZoneId;
    });
    expect(issues).toEqual(
      only(
        ["cloud.azure.resourceGroupName", "for managed data services on azure"],
        ["cloud.azure.subnetId", "for managed data services on azure"],
        ["cloud.azure.postgresSubnetId", "for managed data services on azure"],
        ["cloud.azure.postgresPrivateDnsZoneId", "for managed data services on azure"],
      ),
    );
  });

  it.each([
    ["cache", ["cloud.azure.subnetId"]],
    ["docdb", ["cloud.azure.subnetId"]],
    ["sqldb", ["cloud.azure.postgresSubnetId", "cloud.azure.postgresPrivateDnsZoneId"]],
    ["vectordb", ["cloud.azure.postgresSubnetId", "cloud.azure.postgresPrivateDnsZoneId"]],
  ])("on azure, managed %s alone needs %j", (svc, paths) => {
    const issues = issuesOf("prod-azure", (s) => {
      s.data.sqldb = s.data.cache = s.data.docdb = s.data.vectordb = "inCluster";
      s.data[svc as "sqldb"] = "managed";
      delete s.cloud.azure.subnetId;
      delete s.cloud.azure.postgresSubnetId;
      delete s.cloud.azure.postgresPrivateDnsZoneId;
    });
    expect(issues.map((i) => i.path)).toEqual(paths);
  });

  it("no managed service, no cloud requirement", () => {
    expect(
      issuesOf("staging-aws", (s) => {
        s.data.sqldb = s.data.cache = s.data.docdb = s.data.mq = s.data.vectordb = "inCluster";
        s.cloud.aws.subnetIds = [];
        delete s.cloud.aws.vpcId;
      }),
    ).toEqual([]);
  });
});

describe("network placement", () => {
  it("data services are never opened to the internet", () => {
    expect(issuesOf("staging-aws", (s) => (s.cloud.aws.clientCidrs = ["10.0.0.0/8", "0.0.0.0/0"]))).toEqual(
      only(["cloud.aws.clientCidrs[1]", "must not open data services to the internet"]),
    );
    expect(issuesOf("staging-aws", (s) => (s.cloud.aws.clientCidrs = ["10.0.0.0/10"]))).toEqual([]);
  });
});

describe("data service modes", () => {
  it("an external group's enabled flag, when set, must follow the mode", () => {
    expect(issuesOf("local", (s) => (s.externalSqldb.enabled = true))).toEqual(
      only(["externalSqldb.enabled", "must be false because data.sqldb is inCluster"]),
    );
    expect(issuesOf("onprem", (s) => (s.externalMq.enabled = false))).toEqual(
      only(["externalMq.enabled", "must be true because data.mq is external"]),
    );
    expect(issuesOf("onprem", (s) => (s.externalMq.enabled = true))).toEqual([]);
    expect(issuesOf("local", (s) => (s.externalSqldb.enabled = false))).toEqual([]);
  });

  it("an in-cluster service must not be disabled", () => {
    expect(issuesOf("local", (s) => (s.cache.enabled = false))).toEqual(
      only(["cache.enabled", "nothing would provide cache"]),
    );
    expect(issuesOf("onprem", (s) => (s.cache.enabled = false))).toEqual([]);
  });

  it.each([
    ["sqldb", "externalSqldb", ["host", "username", "password", "dbName"]],
    ["cache", "externalCache", ["host", "username", "password"]],
    ["vectordb", "externalVectordb", ["host", "username", "password", "database"]],
    ["mq", "externalMq", ["host", "username", "password"]],
    ["docdb", "externalDocdb", ["mongodb_uri"]],
  ])("external %s needs %s's connection fields", (svc, group, fields) => {
    const issues = issuesOf("onprem", (s) => {
      for (const f of fields) delete s[group][f];
    });
    expect(issues).toEqual(
      only(...fields.map((f): [string, string] => [`${group}.${f}`, `when data.${svc} is external`])),
    );
  });

  it("an external docdb's URI is a mongodb URI", () => {
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "postgres://h/db"))).toEqual(
      only(["externalDocdb.mongodb_uri", "mongodb:// or mongodb+srv://"]),
    );
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://u:p@h1:27017/db"))).toEqual([]);
  });

  it("an external docdb URI listing several hosts needs replicaSet (not for mongodb+srv)", () => {
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://u:p@h1,h2/db"))).toEqual(
      only(["externalDocdb.mongodb_uri", "replicaSet"]),
    );
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://h1,h2/db?tls=true"))).toEqual(
      only(["externalDocdb.mongodb_uri", "replicaSet"]),
    );
    expect(
      issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://u:p@h1,h2/db?tls=true&replicaSet=rs0")),
    ).toEqual([]);
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://h1,h2/db?replicaSet=rs0"))).toEqual([]);
    expect(
      issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb+srv://u:p@cluster.example.com/db")),
    ).toEqual([]);
    // A mongodb+srv URI names one DNS record, which lists the set itself.
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb+srv://u:p@a,b/db"))).toEqual([]);
    // A comma after the host list (in the path or query) is not a second host.
    expect(issuesOf("onprem", (s) => (s.externalDocdb.mongodb_uri = "mongodb://h1/db?readPreference=a,b"))).toEqual([]);
  });
});

describe("groups that hold settings elsewhere", () => {
  it("vectordb.sqldb is refused, pointing at vectordb.postgresql", () => {
    expect(issuesOf("local", (s) => (s.vectordb.sqldb = { username: "x" }))).toEqual(
      only(["vectordb.sqldb", "vectordb.postgresql.username"]),
    );
  });

  it("sentinel needs the replication architecture", () => {
    expect(issuesOf("local", (s) => (s.cache.auth.sentinel = true))).toEqual(
      only(["cache.auth.sentinel", "needs cache.architecture replication"]),
    );
    expect(
      issuesOf("local", (s) => {
        s.cache.auth.sentinel = true;
        s.cache.architecture = "replication";
      }),
    ).toEqual([]);
  });

  it("docdb users, databases and passwords come in matching lists", () => {
    expect(issuesOf("local", (s) => (s.docdb.auth.usernames = ["a", "b"]))).toEqual(
      only(["docdb.auth.usernames", "one entry per docdb.auth.databases entry"]),
    );
    expect(issuesOf("local", (s) => (s.docdb.auth.passwords = ["p1", "p2"]))).toEqual(
      only(["docdb.auth.passwords", "one entry per docdb.auth.usernames entry"]),
    );
    expect(issuesOf("local", (s) => (s.docdb.auth.passwords = ["p1"]))).toEqual([]);
  });
});

describe("api agents", () => {
  it("are given one way: agents or agentsFile", () => {
    expect(
      issuesOf("local", (s) => {
        s.api.agents = [{ id: "echo", kind: "echo" }];
        s.api.agentsFile = "agents.yaml";
      }),
    ).toEqual(expect.arrayContaining(only(["api.agentsFile", "either api.agents or api.agentsFile"])));
  });

  it("are checked by the service's own validator, each problem at its path", () => {
    const issues = issuesOf("local", (s) => (s.api.agents = [{ id: "x", kind: "no-such-kind" }, { kind: "llm" }]));
    expect(issues).toEqual(
      expect.arrayContaining([{ path: "api.agents[0]", message: "field 'kind' must be one of llm, files, synthetic" }]),
    );
    for (const i of issues) expect(i.path).toMatch(/^api\.agents\[\d\]$/);
  });

  it("must not name environment variables the pods do not have", () => {
    const agents = specFor("prod-aws").api.agents as Array<Record<string, unknown>>;
    const issues = issuesOf("prod-aws", (s) => {
      s.api.agents = structuredClone(agents);
      (s.api.agents as Array<Record<string, unknown>>)[0].api_key_env = "MY_KEY";
    });
    expect(issues).toEqual(
      only(["api.agents[0].api_key_env", "no variable 'MY_KEY': deployed agents use the upstream key the stack gives"]),
    );
    const baseUrl = issuesOf("prod-aws", (s) => {
      s.api.agents = structuredClone(agents);
      (s.api.agents as Array<Record<string, unknown>>)[0].base_url_env = "UPSTREAM_URL";
    });
    expect(baseUrl).toEqual(only(["api.agents[0].base_url_env", "no variable 'UPSTREAM_URL': set 'base_url' itself"]));
  });
});

describe("api TLS", () => {
  it("the platform's TLS secrets do not serve the API: it needs its own, or a cert-manager issuer", () => {
    // (One problem at a time: the source namespace's own rule waits for api.tls.)
    expect(issuesOf("onprem", (s) => (s.api.tls = []))).toEqual(only(["api.tls", "give the API host a secret"]));
    expect(
      issuesOf("onprem", (s) => {
        s.api.tls = [];
        delete s.api.tlsSourceNamespace;
        s.ingress.annotations["cert-manager.io/cluster-issuer"] = "corp";
      }),
    ).toEqual([]);
  });

  it("a source namespace needs secrets named in api.tls", () => {
    expect(issuesOf("local", (s) => (s.api.tlsSourceNamespace = "platform"))).toEqual(
      only(["api.tlsSourceNamespace", "list them in api.tls"]),
    );
    expect(issuesOf("onprem", (s) => (s.api.tls = [{ hosts: ["api.agents.corp.example.com"] }]))).toEqual(
      only(["api.tlsSourceNamespace", "list them in api.tls"]),
    );
  });

  it("the source namespace differs from the API's", () => {
    expect(issuesOf("onprem", (s) => (s.api.tlsSourceNamespace = s.api.namespace))).toEqual(
      only(["api.tlsSourceNamespace", "must differ from api.namespace"]),
    );
  });
});

describe("api image", () => {
  it("is an image or a build, not both, not neither", () => {
    expect(issuesOf("local", (s) => delete s.api.build)).toEqual(only(["api.image", "set api.image"]));
    expect(issuesOf("onprem", (s) => (s.api.build = specFor("local").api.build))).toEqual(
      expect.arrayContaining(only(["api.build", "either api.image or api.build"])),
    );
  });

  it("an image is pinned by digest or a release tag", () => {
    const image = (ref: string) => issuesOf("onprem", (s) => (s.api.image = ref));
    expect(image("repo/agentport:latest")).toEqual(only(["api.image", "'repo/agentport:latest' can move"]));
    expect(image("repo/agentport:1.2")).toEqual(only(["api.image", "can move"]));
    expect(image("repo/agentport@sha256:abc")).toEqual(only(["api.image", "can move"]));
    expect(image("repo/agentport:1.2.3")).toEqual([]);
    expect(image("repo/agentport:10.20.30")).toEqual([]);
    expect(image("repo/agentport:1.2.3-")).toEqual(only(["api.image", "can move"]));
    expect(image("repo/agentport:v1.2.3x")).toEqual(only(["api.image", "can move"]));
    expect(image("repo/agentport:1.2.3-rc.1")).toEqual([]);
    expect(image(`repo/agentport@sha256:${"a".repeat(64)}`)).toEqual([]);
    expect(image(`repo/agentport:1.2.3-rc.1-x`)).toEqual([]);
    expect(image("repo/agentport:1.2.3 ")).toEqual(only(["api.image", "can move"]));
  });

  it("a build off AWS names its registry", () => {
    expect(issuesOf("local", (s) => delete s.api.registry)).toEqual(only(["api.registry", "ECR repository on AWS"]));
    expect(issuesOf("staging-aws")).toEqual([]);
  });

  it("registry credentials are both or neither", () => {
    expect(issuesOf("onprem", (s) => delete s.api.registry.password)).toEqual(
      only(["api.registry", "both username and password"]),
    );
    expect(
      issuesOf("onprem", (s) => {
        delete s.api.registry.password;
        delete s.api.registry.username;
      }),
    ).toEqual([]);
  });

  it("a build's pods pull with pull-only credentials, other than the push ones", () => {
    expect(issuesOf("prod-azure", (s) => delete s.api.registry.pull)).toEqual(
      only(["api.registry.pull", "must not pull with the push credentials"]),
    );
    expect(issuesOf("prod-azure", (s) => (s.api.registry.pull.username = s.api.registry.username))).toEqual(
      only(["api.registry.pull", "other credentials than the push ones"]),
    );
    // An image that is pulled, not built, may use one set.
    expect(issuesOf("onprem", (s) => (s.api.registry.pull = { username: "agentport-pull", password: "p" }))).toEqual(
      [],
    );
  });
});

describe("api limits against the gateway", () => {
  it("the heartbeat fits below the read timeout", () => {
    expect(issuesOf("staging-aws", (s) => (s.api.heartbeatSeconds = 180))).toEqual(
      only(["api.heartbeatSeconds", "below the gateway read timeout"]),
    );
  });

  it("the read timeout leaves room for a heartbeat", () => {
    const issues = issuesOf("staging-aws", (s) => (s.ingress.annotations["read-timeout"] = "1999"));
    expect(issues).toEqual(only(["ingress.annotations.read-timeout", "must be at least 2000 ms"]));
    expect(issuesOf("staging-aws", (s) => (s.ingress.annotations["read-timeout"] = "2000"))).toEqual([]);
  });

  it("the gateway's body limit exceeds the file limit by at least 1 MiB (multipart framing)", () => {
    const sizes = (file: number, max: number) =>
      issuesOf("staging-aws", (s) => {
        s.api.fileMaxBytes = String(file);
        s.gateway.env.client_max_body_size = String(max);
      });
    expect(sizes(512 * MiB, 512 * MiB + MiB)).toEqual([]);
    expect(sizes(512 * MiB, 512 * MiB + MiB - 1)).toEqual(
      only(["gateway.env.client_max_body_size", "must exceed api.fileMaxBytes by at least 1m"]),
    );
    expect(sizes(512 * MiB, 512 * MiB)).toEqual(only(["gateway.env.client_max_body_size", "at least 1m"]));
    expect(sizes(GiB, 600 * MiB)).toEqual(only(["gateway.env.client_max_body_size", "at least 1m"]));
  });

  it("a gateway without a body limit (0) needs no margin", () => {
    expect(
      issuesOf("staging-aws", (s) => {
        s.gateway.env.client_max_body_size = "0";
        s.api.jsonBodyLimit = "10m";
      }),
    ).toEqual([]);
  });

  it("the JSON body limit must not exceed the gateway's body limit", () => {
    expect(issuesOf("staging-aws", (s) => (s.api.jsonBodyLimit = "521m"))).toEqual(
      only(["api.jsonBodyLimit", "must not exceed gateway.env.client_max_body_size"]),
    );
    expect(issuesOf("staging-aws", (s) => (s.api.jsonBodyLimit = "520m"))).toEqual([]);
  });

  it("without its own JSON limit the API takes the gateway's body buffer size, held to the same rule", () => {
    expect(
      issuesOf("staging-aws", (s) => {
        s.gateway.env.client_body_buffer_size = "600m";
        s.api.fileMaxBytes = "1m";
      }),
    ).toEqual(only(["api.jsonBodyLimit", "must not exceed"]));
  });
});
