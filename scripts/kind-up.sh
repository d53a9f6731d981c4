#!/bin/sh
# The `local` stack's cluster: kind with a local image registry, set up the way kind's "Local
# Registry" guide describes. `pulumi up` on `local` builds the image from the working tree and
# pushes it to localhost:5001; the nodes pull it from the registry container on kind's network.
# Idempotent: an existing registry or cluster is kept. Needs docker, kind and kubectl.
set -eu
cluster=${KIND_CLUSTER:-agentport} # the stack's kubernetes:context is kind-<cluster>
reg_name=kind-registry
reg_port=5001

# 1. The registry, published on the host's loopback only.
if [ "$(docker inspect -f '{{.State.Running}}' "$reg_name" 2>/dev/null || true)" != true ]; then
  docker run -d --restart=always -p "127.0.0.1:${reg_port}:5000" --network bridge --name "$reg_name" registry:2
fi

# 2. The cluster, its containerd reading per-registry hosts from certs.d.
if ! kind get clusters | grep -qx "$cluster"; then
  kind create cluster --name "$cluster" --config=- <<CONFIG
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
containerdConfigPatches:
- |-
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "/etc/containerd/certs.d"
CONFIG
fi

# 3. On every node, localhost:5001 means the registry container (a node's own localhost is not the host's).
for node in $(kind get nodes --name "$cluster"); do
  docker exec "$node" mkdir -p "/etc/containerd/certs.d/localhost:${reg_port}"
  printf '[host."http://%s:5000"]\n' "$reg_name" | docker exec -i "$node" cp /dev/stdin "/etc/containerd/certs.d/localhost:${reg_port}/hosts.toml"
done

# 4. The registry joins kind's network, so the nodes reach it by name.
if [ "$(docker inspect -f '{{json .NetworkSettings.Networks.kind}}' "$reg_name")" = null ]; then
  docker network connect kind "$reg_name"
fi

# 5. Tell cluster tools where the local registry is (KEP-1755).
kubectl --context "kind-${cluster}" apply -f - <<MANIFEST
apiVersion: v1
kind: ConfigMap
metadata:
  name: local-registry-hosting
  namespace: kube-public
data:
  localRegistryHosting.v1: |
    host: "localhost:${reg_port}"
    help: "https://kind.sigs.k8s.io/docs/user/local-registry/"
MANIFEST
echo "kind cluster '$cluster' with registry localhost:${reg_port}"
