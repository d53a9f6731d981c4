# syntax=docker/dockerfile:1
# The agentport API service. Build: docker build -t agentport:dev .
# The final stage holds only the production build (dist/) and its runtime dependencies, runs as
# uid/gid 1000 with `node` as PID 1, and writes only under /tmp (read-only root filesystem).
# The context is only the package manifests, the build's scripts and service/ (.dockerignore).

# Reproducible where cheap: BuildKit stamps the image config and history with the SOURCE_DATE_EPOCH
# build arg (`pulumi up` passes 0), and the staging script sets every file's mtime to it. A constant,
# not the commit's time: a commit that changes nothing the image is built from must not change its
# digest.
ARG SOURCE_DATE_EPOCH=0

FROM node:24.11.1-bookworm-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: no package needs its install step for the build (esbuild's binary ships in
# its platform package), and the Pulumi packages' plugin downloads must not run here.
RUN npm ci --ignore-scripts --no-audit --no-fund

# The embedded store's template, from the manifests and its own two files only: its layer is reused
# by every rebuild after a code change (initdb never makes the same bytes twice).
FROM deps AS template
COPY scripts/pglite-template.mjs scripts/
COPY service/src/store/pglite-template.ts service/src/store/
RUN node scripts/pglite-template.mjs

FROM deps AS build
ARG SOURCE_DATE_EPOCH
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/bundle-options.mjs scripts/pglite-template.mjs scripts/stage-image.sh scripts/
COPY service/src service/src
COPY service/agents.example.yaml service/
COPY --from=template /src/node_modules/.cache/agentport node_modules/.cache/agentport
RUN scripts/stage-image.sh /stage

FROM node:24.11.1-bookworm-slim
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/agentport/agentport
LABEL org.opencontainers.image.title="agentport" \
      org.opencontainers.image.description="OpenAI-compatible API over a self-hosted AI agent platform" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/tmp/agentport
WORKDIR /app
COPY --from=build /stage /app
USER 1000:1000
EXPOSE 8080
# Exec form: node is PID 1 and receives SIGTERM itself, so the drain in server.js runs.
CMD ["node", "server.js"]
