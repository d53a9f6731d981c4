/**
 * Cloud-B storage: the four S3 buckets in ap-northeast-1 (the region signed URLs are made
 * for), encrypted, versioned, public access blocked except on the public bucket, and an
 * IAM identity that can reach only these buckets.
 */
import * as pulumi from "@pulumi/pulumi";
import { AccessKey, Role, RolePolicy, User, UserPolicy } from "@pulumi/aws/iam/index.js";
import { API_SERVICE_ACCOUNT } from "../api/settings.js";
import {
  Bucket,
  BucketLifecycleConfiguration,
  BucketOwnershipControls,
  BucketPolicy,
  BucketPublicAccessBlock,
  BucketServerSideEncryptionConfiguration,
  BucketVersioning,
} from "@pulumi/aws/s3/index.js";
import type { StackSpec } from "../config.js";
import { BUCKET_KEYS, storeResourceName, type StorageOutputs } from "./types.js";
import { protectState } from "../protect.js";

/** Days an overwritten or deleted object's previous version stays recoverable. */
export const NONCURRENT_VERSION_DAYS = 30;

export interface S3StorageArgs {
  /** storage.secret.cloudb: region, bucket names and optional given keys. */
  cloudb: StackSpec["storage"]["secret"]["cloudb"];
  /** Tags for every resource. */
  tags: Record<string, string>;
  /** The buckets exist already: none is created, the names given are rendered. */
  existing?: boolean;
  /** The cluster's OIDC provider and the API's namespace: the API gets an IAM role of its own. */
  irsa?: { oidcProviderArn: string; oidcIssuer: string; namespace: string };
}

export class S3Storage extends pulumi.ComponentResource implements StorageOutputs {
  readonly provider = "S3" as const;
  readonly chartSecret: pulumi.Output<Record<string, string>>;
  readonly componentValues: Record<string, unknown>;
  readonly serviceEnv: pulumi.Output<Record<string, string>>;
  readonly serviceRoleArn?: pulumi.Output<string>;
  /** Bucket ARNs, for policies elsewhere. */
  readonly bucketArns: pulumi.Output<string>[];

  constructor(name: string, args: S3StorageArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:storage:S3Storage", name, {}, opts);
    const { cloudb, tags } = args;
    const region = cloudb.REGION;
    // Buckets that exist are only named: ARNs follow from the names, nothing is created or protected.
    this.bucketArns = args.existing
      ? BUCKET_KEYS.map((key) => pulumi.output(`arn:aws:s3:::${cloudb[key]}`))
      : BUCKET_KEYS.map((key) => createBucket(name, key, cloudb, tags, this).arn);
    const bucketPolicy = pulumi.all(this.bucketArns).apply(bucketAccessPolicy);
    let accessKeyId: pulumi.Output<string>;
    let secretAccessKey: pulumi.Output<string>;
    if (cloudb.ACCESS_KEY_ID && cloudb.SECRET_ACCESS_KEY) {
      accessKeyId = pulumi.secret(cloudb.ACCESS_KEY_ID);
      secretAccessKey = pulumi.secret(cloudb.SECRET_ACCESS_KEY);
    } else {
      const key = createUserKey(name, tags, bucketPolicy, this);
      accessKeyId = pulumi.secret(key.id);
      secretAccessKey = pulumi.secret(key.secret);
    }

    this.chartSecret = pulumi.secret(
      pulumi.all([accessKeyId, secretAccessKey]).apply(([id, secret]): Record<string, string> => ({
        ACCESS_KEY_ID: id,
        SECRET_ACCESS_KEY: secret,
        REGION: region,
        BUCKET: cloudb.BUCKET ?? "",
        PUBLIC_BUCKET: cloudb.PUBLIC_BUCKET ?? "",
        EXPORT_PROJECT_BUCKET: cloudb.EXPORT_PROJECT_BUCKET ?? "",
        ULTRON_BUCKET: cloudb.ULTRON_BUCKET ?? "",
      })),
    );
    this.componentValues = { enabled: false };
    if (args.irsa) this.serviceRoleArn = createApiRole(name, args.irsa, tags, bucketPolicy, this).arn;
    const irsa = !!args.irsa;
    this.serviceEnv = pulumi.secret(
      pulumi.all([accessKeyId, secretAccessKey]).apply(([id, secret]): Record<string, string> => ({
        BLOB_STORE: "s3",
        S3_BUCKET: cloudb.BUCKET ?? "",
        S3_REGION: region,
        ...(irsa ? {} : { S3_ACCESS_KEY_ID: id, S3_SECRET_ACCESS_KEY: secret }),
        S3_FORCE_PATH_STYLE: "false",
      })),
    );
    this.registerOutputs({ chartSecret: this.chartSecret, serviceEnv: this.serviceEnv });
  }
}

/** One bucket of the four, encrypted, versioned, its stale uploads and old versions expired, public only if it is the public one. */
function createBucket(
  name: string,
  key: (typeof BUCKET_KEYS)[number],
  cloudb: S3StorageArgs["cloudb"],
  tags: Record<string, string>,
  parent: pulumi.Resource,
): Bucket {
  const region = cloudb.REGION;
  const isPublic = key === "PUBLIC_BUCKET";
  const id = storeResourceName(name, key);
  // Protected: the platform's files live here; a replace or delete is refused until unprotected.
  const bucket = new Bucket(id, { bucket: cloudb[key], region, tags }, { parent, protect: protectState() });
  new BucketServerSideEncryptionConfiguration(
    `${id}-encryption`,
    {
      bucket: bucket.id,
      region,
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: "AES256" }, bucketKeyEnabled: true }],
    },
    { parent },
  );
  const versioning = new BucketVersioning(
    `${id}-versioning`,
    { bucket: bucket.id, region, versioningConfiguration: { status: "Enabled" } },
    { parent },
  );
  // An upload whose abort failed (a crash, a lost connection) leaves invisible parts that are
  // billed forever; S3 itself aborts any multipart upload still incomplete after a day.
  // Versioning keeps every overwritten or deleted object as a noncurrent version: they are
  // recoverable for NONCURRENT_VERSION_DAYS, then S3 expires them instead of billing them forever.
  new BucketLifecycleConfiguration(
    `${id}-lifecycle`,
    {
      bucket: bucket.id,
      region,
      rules: [
        {
          id: "abort-incomplete-uploads",
          status: "Enabled",
          filter: {},
          abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
        },
        {
          id: "expire-noncurrent-versions",
          status: "Enabled",
          filter: {},
          noncurrentVersionExpiration: { noncurrentDays: NONCURRENT_VERSION_DAYS },
          expiration: { expiredObjectDeleteMarker: true },
        },
      ],
    },
    // Applied after versioning, as AWS asks for lifecycle rules on a versioned bucket.
    { parent, dependsOn: [versioning] },
  );
  new BucketOwnershipControls(
    `${id}-ownership`,
    { bucket: bucket.id, region, rule: { objectOwnership: "BucketOwnerEnforced" } },
    { parent },
  );
  // ACLs stay blocked everywhere; only the public bucket may carry a public-read policy.
  const block = new BucketPublicAccessBlock(
    `${id}-public-access`,
    {
      bucket: bucket.id,
      region,
      blockPublicAcls: true,
      ignorePublicAcls: true,
      blockPublicPolicy: !isPublic,
      restrictPublicBuckets: !isPublic,
    },
    { parent },
  );
  if (isPublic) {
    new BucketPolicy(
      `${id}-public-read`,
      {
        bucket: bucket.id,
        region,
        policy: bucket.arn.apply((arn) =>
          JSON.stringify({
            Version: "2012-10-17",
            Statement: [
              { Sid: "PublicRead", Effect: "Allow", Principal: "*", Action: "s3:GetObject", Resource: `${arn}/*` },
            ],
          }),
        ),
      },
      { parent, dependsOn: [block] },
    );
  }
  return bucket;
}

/** The IAM policy that reaches these buckets and nothing else. */
function bucketAccessPolicy(arns: string[]): string {
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      {
        Effect: "Allow",
        Action: ["s3:ListBucket", "s3:GetBucketLocation", "s3:ListBucketMultipartUploads"],
        Resource: arns,
      },
      {
        Effect: "Allow",
        Action: [
          "s3:GetObject",
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:AbortMultipartUpload",
          "s3:ListMultipartUploadParts",
        ],
        Resource: arns.map((a) => `${a}/*`),
      },
    ],
  });
}

/** An IAM user of its own, allowed only these buckets, and its access key. */
function createUserKey(
  name: string,
  tags: Record<string, string>,
  bucketPolicy: pulumi.Output<string>,
  parent: pulumi.Resource,
): AccessKey {
  const user = new User(`${name}-user`, { path: "/agentport/", tags }, { parent });
  new UserPolicy(
    `${name}-buckets`,
    {
      user: user.name,
      policy: bucketPolicy,
    },
    { parent },
  );
  const key = new AccessKey(`${name}-key`, { user: user.name }, { parent });
  return key;
}

/**
 * IRSA: the API's pods exchange their projected ServiceAccount token for this role; no key
 * is shared with the chart, and nothing long-lived sits in the API's Secret.
 */
function createApiRole(
  name: string,
  irsa: NonNullable<S3StorageArgs["irsa"]>,
  tags: Record<string, string>,
  bucketPolicy: pulumi.Output<string>,
  parent: pulumi.Resource,
): Role {
  const { oidcProviderArn, oidcIssuer, namespace } = irsa;
  const issuer = oidcIssuer.replace(/^https:\/\//, "");
  const role = new Role(
    `${name}-api-role`,
    {
      path: "/agentport/",
      tags,
      assumeRolePolicy: JSON.stringify({
        Version: "2012-10-17",
        Statement: [
          {
            Effect: "Allow",
            Principal: { Federated: oidcProviderArn },
            Action: "sts:AssumeRoleWithWebIdentity",
            Condition: {
              StringEquals: {
                [`${issuer}:sub`]: `system:serviceaccount:${namespace}:${API_SERVICE_ACCOUNT}`,
                [`${issuer}:aud`]: "sts.amazonaws.com",
              },
            },
          },
        ],
      }),
    },
    { parent },
  );
  new RolePolicy(`${name}-api-buckets`, { role: role.name, policy: bucketPolicy }, { parent });
  return role;
}
