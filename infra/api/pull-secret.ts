/** An imagePullSecret for the API image's registry, in a namespace that runs the image. */
import * as pulumi from "@pulumi/pulumi";
import { Secret } from "@pulumi/kubernetes/core/v1/index.js";

export interface PullCredentials {
  server: string;
  username: string;
  password: pulumi.Output<string>;
}

export function pullSecret(
  name: string,
  namespace: pulumi.Input<string>,
  labels: Record<string, string>,
  pull: PullCredentials,
  opts: pulumi.CustomResourceOptions,
): Secret {
  const dockerConfig = pull.password.apply((password) =>
    JSON.stringify({
      auths: {
        [pull.server]: {
          username: pull.username,
          password,
          auth: Buffer.from(`${pull.username}:${password}`).toString("base64"),
        },
      },
    }),
  );
  return new Secret(
    name,
    {
      metadata: { namespace, labels },
      type: "kubernetes.io/dockerconfigjson",
      stringData: { ".dockerconfigjson": pulumi.secret(dockerConfig) },
    },
    opts,
  );
}
