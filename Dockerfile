# syntax=docker/dockerfile:1
# The agentport API service. Build: docker build -t agentport:dev .
# The final stage holds only the production build (dist/) and its runtime dependencies, runs as
# uid/gid 1000 with `node` as PID 1, and writes only under /tmp (read-only root filesystem).

FROM node:24.11.1-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: no package needs its install step for the build (esbuild's binary ships in
# its platform package), and the Pulumi packages' plugin downloads must not run here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
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
