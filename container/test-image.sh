#!/usr/bin/env sh
# `npm run test:image`: builds the image from Debian's packages and the npm registry
# (container/build.sh --local-base) and runs it against a real Redis (test/image/). Needs root,
# podman and mmdebstrap (apt-get install podman mmdebstrap); minutes, most of them the first
# mmdebstrap (its result is kept in .tmp/image/base.tar and podman's storage).
set -eu
cd "$(dirname "$0")/.."
exec node node_modules/vitest/vitest.mjs run --config test/image/vitest.config.ts "$@"
