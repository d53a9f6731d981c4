/**
 * The API service's image: a pinned reference from the stack, or built from this repository's
 * Dockerfile and pushed — to an ECR repository the stack creates (AWS), or to the registry the
 * stack names. The Deployment runs `ref`, which for a build is the pushed tag with its digest,
 * so a rebuild that changes nothing deploys nothing, and a changed image rolls the pods.
 *
 * Pull access: ECR is read by the EKS nodes' role (AmazonEC2ContainerRegistryReadOnly, which
 * managed node groups carry); a named registry is read with pull-only credentials as an
 * imagePullSecret (never the push ones: whoever reads Secrets in the namespace could push), or
 * with none where the nodes read it themselves (a local registry).
 */
import * as pulumi from "@pulumi/pulumi";
import { getAuthorizationTokenOutput } from "@pulumi/aws/ecr/getAuthorizationToken.js";
import { LifecyclePolicy } from "@pulumi/aws/ecr/lifecyclePolicy.js";
import { Repository } from "@pulumi/aws/ecr/repository.js";
import { Image, Platform } from "@pulumi/docker-build";
import type { StackSpec } from "../config.js";
import { protectState } from "../protect.js";

export interface ApiImage {
  /** What the Deployment runs. */
  ref: pulumi.Output<string>;
  /**
   * What the DB-role Job runs: a built image by its build tag (pushed by this same `up` before the
   * Job runs, pulled Always), so a code change leaves the Job alone; a pinned image as pinned.
   */
  jobRef: pulumi.Output<string>;
  /** The build, when the stack builds: what must succeed before anything in the cluster changes. */
  built?: pulumi.Resource;
  /** Credentials the pods pull with (a named registry), or undefined (public, or the nodes' role). */
  pull?: { server: string; username: string; password: pulumi.Output<string> };
}

/** The repository's lifecycle: the last 50 images are kept, older ones expire. */
const KEEP_LAST_50_IMAGES = JSON.stringify({
  rules: [
    {
      rulePriority: 1,
      description: "keep the last 50 images",
      selection: { tagStatus: "any", countType: "imageCountMoreThan", countNumber: 50 },
      action: { type: "expire" },
    },
  ],
});

type BuildPlatform = "linux/amd64" | "linux/arm64";

/** The Linux platform of a Node architecture (`process.arch`): what a local cluster on this host runs. */
export function hostPlatform(arch: string = process.arch): BuildPlatform {
  if (arch === "x64") return "linux/amd64";
  if (arch === "arm64") return "linux/arm64";
  throw new Error(`this host's architecture (${arch}) is neither x64 nor arm64: set api.build.platforms`);
}

/**
 * The platforms to build: the stack's, else the host's on `local` (its kind cluster runs on this
 * machine, so an amd64-only image would not start on an arm64 laptop), else linux/amd64.
 */
export function buildPlatforms(platforms: BuildPlatform[] | undefined, stack = pulumi.getStack()): BuildPlatform[] {
  if (platforms) return platforms;
  return stack === "local" ? [hostPlatform()] : ["linux/amd64"];
}

export function apiImage(name: string, spec: StackSpec, opts: pulumi.CustomResourceOptions = {}): ApiImage {
  const { image, build, registry } = spec.api;
  // A build pushes with the registry's credentials; the pods pull with pull-only ones.
  const pullCredentials = build
    ? registry?.pull
    : registry?.username
      ? { username: registry.username, password: registry.password! }
      : undefined;
  const pull =
    registry && pullCredentials
      ? {
          server: registry.server,
          username: pullCredentials.username,
          password: pulumi.secret(pullCredentials.password),
        }
      : undefined;
  if (!build) return { ref: pulumi.output(image!), jobRef: pulumi.output(image!), pull };

  let target: {
    repository: pulumi.Input<string>;
    address: pulumi.Input<string>;
    username?: pulumi.Input<string>;
    password?: pulumi.Input<string>;
  };
  if (registry) {
    const push = registry.password ? pulumi.secret(registry.password) : undefined;
    target = {
      repository: `${registry.server}/${registry.repository}`,
      address: registry.server,
      username: registry.username,
      password: push,
    };
  } else {
    const aws = spec.cloud.aws;
    // Stateful: its images are what runs. Tags are immutable (a release tag pushed here can never be
    // overwritten); only the build's own marker tag moves, and the Deployment pins the digest anyway.
    // ECR names are unique per account and region: each stack owns its own repository (two stacks
    // in one account would otherwise both create `agentport/api`, and the second fails).
    const repo = new Repository(
      `${name}-repo`,
      {
        name: build.ecrRepository ?? `agentport/${pulumi.getStack().toLowerCase()}/api`,
        region: aws.region,
        imageScanningConfiguration: { scanOnPush: true },
        imageTagMutability: "IMMUTABLE_WITH_EXCLUSION",
        imageTagMutabilityExclusionFilters: [{ filter: build.tag, filterType: "WILDCARD" }],
        forceDelete: false,
        tags: aws.tags,
      },
      { ...opts, protect: protectState() },
    );
    new LifecyclePolicy(
      `${name}-repo-lifecycle`,
      {
        repository: repo.name,
        region: aws.region,
        policy: KEEP_LAST_50_IMAGES,
      },
      opts,
    );
    const token = getAuthorizationTokenOutput({ registryId: repo.registryId, region: aws.region }, opts);
    target = {
      repository: repo.repositoryUrl,
      address: repo.repositoryUrl.apply((u) => u.split("/")[0]),
      username: token.userName,
      password: pulumi.secret(token.password),
    };
  }
  const built = new Image(
    name,
    {
      context: { location: build.context },
      dockerfile: { location: build.dockerfile },
      platforms: buildPlatforms(build.platforms).map((p) =>
        p === "linux/arm64" ? Platform.Linux_arm64 : Platform.Linux_amd64,
      ),
      // The image config's timestamps (BuildKit) and the files' mtimes (the staging script): a
      // constant, so the same sources build the same layers (see the Dockerfile).
      buildArgs: { SOURCE_DATE_EPOCH: "0" },
      tags: [pulumi.interpolate`${target.repository}:${build.tag}`],
      push: true,
      // A preview shows the image as "to be built"; only `up` builds and pushes (no Docker in preview CI).
      buildOnPreview: false,
      // A registry that takes pushes without credentials (a local one) needs no login.
      registries: target.username
        ? [{ address: target.address, username: target.username, password: target.password }]
        : [],
    },
    opts,
  );
  // Resolved from the build's output, so the Job waits for the push.
  const jobRef = pulumi.all([built.ref, target.repository]).apply(([, repo]) => `${repo}:${build.tag}`);
  return { ref: built.ref, jobRef, pull, built };
}
