/** Ingress, storage, objstore, company, mailer, smtp and mail (reference: same sections). */
import { z } from "zod";
import { CLOUDB_STORAGE_REGION, DEFAULT_TIMEOUT_MS } from "../constants.js";
import {
  bareHost,
  bool,
  boolString,
  bytes,
  cidr,
  component,
  email,
  list,
  millis,
  oneOf,
  port,
  positiveInt,
  record,
  str,
  text,
  url,
} from "./fields.js";

const subIngress = (enabled: boolean, pathPrefix: string) =>
  z
    .strictObject({
      enabled: bool().default(enabled),
      type: oneOf(["subdomain", "path"]).default("subdomain"),
      /** A host name; defaults to `<name>.<ingress.domainName>`. */
      domain: bareHost().optional(),
      pathPrefix: text().default(pathPrefix),
    })
    .prefault({});

const hostIngress = () =>
  z
    .strictObject({
      enabled: bool().default(false),
      domainName: str().optional(),
      annotations: record().default({}),
      tls: list().default([]),
    })
    .prefault({});

export const ingress = z.strictObject({
  enabled: bool().default(true),
  domainName: text(),
  chatDomainName: text(),
  className: text().default("gateway"),
  tls: list().default([]),
  /** The gateway's per-route settings; timeouts are idle times in milliseconds. */
  annotations: z
    .looseObject({
      "strip-path": boolString().default("true"),
      "connect-timeout": millis().default(String(DEFAULT_TIMEOUT_MS)),
      "read-timeout": millis().default(String(DEFAULT_TIMEOUT_MS)),
      "write-timeout": millis().default(String(DEFAULT_TIMEOUT_MS)),
    })
    .prefault({}),
  objstore: z
    .strictObject({
      enabled: bool().default(false),
      domainName: str().optional(),
      annotations: record().default({}),
      tls: list().default([]),
      console: hostIngress(),
    })
    .prefault({}),
  dashboards: subIngress(true, "/dashboards"),
  metrics: subIngress(true, "/metrics"),
});

const bucketNames = {
  BUCKET: text(),
  PUBLIC_BUCKET: text(),
  EXPORT_PROJECT_BUCKET: text(),
  ULTRON_BUCKET: text(),
};

/**
 * S3 buckets the program does not create: those the stack says exist, and every bucket of a stack
 * without a cloud (`cloud.provider: none`, on premises), where there is no account to create them in.
 */
export const bucketsExist = (s: { storage: { existingBuckets: boolean }; cloud: { provider: string } }): boolean =>
  s.storage.existingBuckets || s.cloud.provider === "none";

export const storage = z
  .strictObject({
    provider: oneOf(["S3", "AzureStorage", "Minio"]).default("S3"),
    /**
     * S3 only: the four buckets exist already (another account's): the program creates none and
     * renders the names given. Implied with `cloud.provider: none`. Off AWS the stack gives the access keys too.
     */
    existingBuckets: bool().default(false),
    secret: z
      .strictObject({
        objstore: z
          .strictObject({
            /** Generated (20 characters) unless set. */
            ACCESS_KEY_ID: text().optional(),
            /** Generated (40 characters) unless set. */
            SECRET_ACCESS_KEY: text().optional(),
            REGION: text().default("us-east-1"),
            BUCKET: text().default("platform"),
            PUBLIC_BUCKET: text().default("platform-public"),
            EXPORT_PROJECT_BUCKET: text().default("platform-export"),
            ULTRON_BUCKET: text().default("platform-ultron"),
            FORCE_PATH_STYLE: boolString().default("true"),
          })
          .prefault({}),
        cloudb: z
          .strictObject({
            /** Taken from the IAM access key created for the buckets unless set. */
            ACCESS_KEY_ID: text().optional(),
            SECRET_ACCESS_KEY: text().optional(),
            REGION: text().default(CLOUDB_STORAGE_REGION),
            ...bucketNames,
          })
          .partial({ BUCKET: true, PUBLIC_BUCKET: true, EXPORT_PROJECT_BUCKET: true, ULTRON_BUCKET: true })
          .prefault({}),
        clouda: z
          .strictObject({
            STORAGE_ACCOUNT_NAME: z
              .string()
              .regex(/^[a-z0-9]{3,24}$/, "must be 3-24 lowercase letters and digits")
              .optional(),
            /** Read from the created account unless set. */
            STORAGE_ACCESS_KEY: text().optional(),
            CONTAINER: text().optional(),
            ULTRON_CONTAINER: text().optional(),
            EXPORT_PROJECT_CONTAINER: text().optional(),
            PUBLIC_CONTAINER: text().optional(),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .prefault({});

export const objstore = component(
  {
    mode: oneOf(["standalone", "distributed"]).default("distributed"),
    /** Pods of the objstore: 4 in distributed mode unless set, always 1 in standalone mode. */
    replicas: positiveInt().optional(),
    persistence: z
      .strictObject({
        enabled: bool().default(true),
        size: text().default("10Gi"),
        accessMode: oneOf(["ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"]).default("ReadWriteOnce"),
        storageClass: str().default(""),
      })
      .prefault({}),
    /** Console admin; generated unless set (the package default must be changed). */
    rootUser: text().optional(),
    rootPassword: text().optional(),
  },
  {},
  false,
);

export const company = z.strictObject({
  domain: text(),
  name: text(),
  brand_name: text(),
  language: oneOf(["ja", "en"]).default("ja"),
  pages: z.strictObject({ terms_of_service_url: url(), privacy_policy_url: url() }),
});

export const mailer = z.strictObject({
  smtp_settings: z
    .strictObject({
      /** Not needed when smtp.enabled: then it is the in-cluster SMTP service. */
      address: str().optional(),
      port: port().default(587),
      user_name: str().optional(),
      password: str().optional(),
      domain: str().optional(),
    })
    .prefault({}),
  default_from_email: email(),
});

export const smtp = component(
  {
    config: z
      .strictObject({
        hostname: str().optional(),
        allowedNetworks: z
          .string()
          .refine(
            (v) => v.split(",").every((c) => cidr().safeParse(c.trim()).success),
            "must be comma-separated CIDR blocks",
          )
          .default("10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"),
        messageSizeLimit: bytes().default("52428800"),
      })
      .prefault({}),
    auth: z
      .strictObject({
        enabled: bool().default(false),
        /** Rendered only when set (the package names its user; smtp.auth needs one); the first one's password is generated unless set. */
        users: z.array(z.strictObject({ username: text(), password: text().optional() })).default([]),
      })
      .prefault({}),
    service: z
      .strictObject({
        type: oneOf(["ClusterIP", "LoadBalancer", "NodePort"]).default("ClusterIP"),
        port: port().default(25),
        targetPort: port().default(587),
      })
      .prefault({}),
    image: z
      .strictObject({ pullPolicy: oneOf(["IfNotPresent", "Always", "Never"]).default("IfNotPresent") })
      .prefault({}),
  },
  {},
  false,
);

export const mail = component(
  {
    persistence: z
      .strictObject({
        enabled: bool().default(true),
        size: text().default("1Gi"),
        accessModes: z.array(text()).default(["ReadWriteOnce"]),
        existingClaim: str().default(""),
        storageClass: str().default(""),
      })
      .prefault({}),
    logrotate: z
      .strictObject({
        enabled: bool().default(true),
        path: text().default("/var/log/mail.log"),
        rotate: positiveInt().default(7),
        maxage: positiveInt().default(30),
        maxsize: text().default("100M"),
      })
      .prefault({}),
    config: z.strictObject({ postfix: z.strictObject({ mynetworks: str().default("") }).prefault({}) }).prefault({}),
    mountSecret: z
      .strictObject({
        enabled: bool().default(false),
        path: text().default("/etc/opendkim/keys"),
        data: z.record(z.string(), z.string()).default({}),
      })
      .prefault({}),
  },
  {},
  false,
);
