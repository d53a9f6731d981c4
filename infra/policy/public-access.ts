/**
 * Buckets and storage are not public, except the store the reference makes public (PUBLIC_BUCKET,
 * PUBLIC_CONTAINER). A stack-wide check: a bucket's public access block and a storage account's
 * containers are separate resources, tied to theirs by the engine's property dependencies.
 */
import { isPublicStore } from "./stores.js";
import { violation, type PolicyInput, type Violation } from "./resource.js";

const BUCKET = "aws:s3/bucket:Bucket";
const BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock";
const ACCOUNT = "azure-native:storage:StorageAccount";
const CONTAINER = "azure-native:storage:BlobContainer";

const of = (rs: PolicyInput[], type: string) => rs.filter((r) => r.type === type);
const guards = (r: PolicyInput, input: string, target: PolicyInput) => (r.dependsOn[input] ?? []).includes(target.name);

function s3(rs: PolicyInput[]): Violation[] {
  const blocks = of(rs, BLOCK);
  return of(rs, BUCKET).flatMap((bucket) => {
    const found: Violation[] = [];
    if (bucket.props.acl === "public-read" || bucket.props.acl === "public-read-write")
      found.push(violation(bucket, `acl ${bucket.props.acl} makes it public`));
    const mine = blocks.filter((b) => guards(b, "bucket", bucket));
    if (mine.length === 0) found.push(violation(bucket, "has no public access block (aws.s3.BucketPublicAccessBlock)"));
    for (const block of mine) {
      const p = block.props;
      const always = ["blockPublicAcls", "ignorePublicAcls"].filter((k) => p[k] !== true);
      const policy = isPublicStore(bucket.name)
        ? []
        : ["blockPublicPolicy", "restrictPublicBuckets"].filter((k) => p[k] !== true);
      const off = [...always, ...policy];
      if (off.length)
        found.push(violation(block, `leaves bucket ${bucket.name} public: ${off.join(", ")} must be true`));
    }
    return found;
  });
}

function azure(rs: PolicyInput[]): Violation[] {
  const containers = of(rs, CONTAINER);
  const open = containers.filter((c) => c.props.publicAccess !== undefined && c.props.publicAccess !== "None");
  const found = open
    .filter((c) => !isPublicStore(c.name))
    .map((c) =>
      violation(c, `publicAccess ${String(c.props.publicAccess)} makes it public; only the public container may be`),
    );
  for (const account of of(rs, ACCOUNT)) {
    // Unset is off: new accounts refuse anonymous access unless allowed.
    if (account.props.allowBlobPublicAccess !== true) continue;
    if (!open.some((c) => isPublicStore(c.name) && guards(c, "accountName", account))) {
      found.push(violation(account, "allowBlobPublicAccess must be false: it holds no public container"));
    }
  }
  return found;
}

export const publicStorage = (rs: PolicyInput[]): Violation[] => [...s3(rs), ...azure(rs)];
