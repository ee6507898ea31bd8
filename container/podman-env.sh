# Sourced by build.sh and test/image/: how podman runs here. Root, the vfs storage driver (no
# overlay mounts needed) and the host network. Some sandboxes refuse what podman asks of the OCI
# runtime by default: crun's setrlimit of RLIMIT_NOFILE/NPROC to podman's defaults (so the
# open-files limit is given as this shell's own, and the process limit lowered to 8192, which
# the kernel always allows), and crun on a cgroup-v1/v2 hybrid (then runc, Debian's package, if
# installed). PODMAN_RUNTIME is set to the first that starts a container, or to "none".
PODMAN="podman --storage-driver vfs"
ULIMITS="--ulimit nofile=$(ulimit -Sn):$(ulimit -Hn) --ulimit nproc=8192:8192"

# Sets PODMAN_RUNTIME (crun, runc or none) by starting `true` in image $1.
probe_runtime() {
  PODMAN_RUNTIME=none
  for runtime in crun runc; do
    command -v "$runtime" >/dev/null 2>&1 || continue
    if $PODMAN --runtime "$runtime" run --rm --network host $ULIMITS "$1" true >/dev/null 2>&1; then
      PODMAN_RUNTIME=$runtime
      return
    fi
  done
}
