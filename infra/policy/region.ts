/** Cloud-B buckets live in the one region the platform signs URLs for (reference: Storage). */
import { CLOUDB_STORAGE_REGION } from "./reference.js";
import { UNKNOWN, violation, type PolicyInput, type Violation } from "./resource.js";

export function bucketRegion(r: PolicyInput): Violation[] {
  if (r.type !== "aws:s3/bucket:Bucket") return [];
  const region = r.props.region ?? r.providerRegion;
  if (region === UNKNOWN || region === CLOUDB_STORAGE_REGION) return [];
  return [
    violation(
      r,
      `is in ${typeof region === "string" ? region : "the provider's default region"}; cloud-B buckets must be in ${CLOUDB_STORAGE_REGION} (signed URLs are generated for that region)`,
    ),
  ];
}
