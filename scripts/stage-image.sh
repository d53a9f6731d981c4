#!/bin/sh
# Assembles the image's final stage in DEST: the production build and its runtime dependencies,
# nothing else. The Dockerfile runs this in its build stage and the tests run it too, so what is
# tested is what ships. Expects the repository's dependencies installed (npm ci).
set -eu
dest=${1:?usage: scripts/stage-image.sh DEST}
cd "$(dirname "$0")/.."
npm run -s build
rm -rf "$dest"
mkdir -p "$dest"
cp -R dist/. "$dest/"
cd "$dest"
# --ignore-scripts: the runtime packages need no install step, and none may run at build time.
npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
# npm's own metadata is not needed at run time.
rm -f node_modules/.package-lock.json
# Reproducible layers: every file's mtime is SOURCE_DATE_EPOCH (default 0), not the build's time.
find . -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
