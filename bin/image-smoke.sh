#!/usr/bin/env bash
# Runs the container image without a container runtime and checks that its node answers: unpacks the
# layers of a docker-archive (ringbase-server/target/ringbase-image.tar, from ./mvnw -Pimage) in order into
# a root directory, and runs the image's entrypoint, with its environment, user and working directory, in
# it with chroot inside new mount, PID and network namespaces (unshare; the network is the namespace's own
# loopback, so port 8080 is free whatever runs on the machine). Then PUTs a key, GETs it back, reads
# /v0/status and stops the node with SIGTERM, checking each answer. Needs root, unshare, chroot, ip, jq,
# curl and tar (whiteouts in layers are not applied: Jib's layers have none).
#   bin/image-smoke.sh IMAGE_TAR [ARGS...]   ARGS replace the image's Cmd, as docker run's do: they follow
#                                            the entrypoint (here: `serve`'s flags)
# RINGBASE_SMOKE_LOG=1 prints the node's output on success too.
# Exits 0 if every answer was right; else 1 with the node's log on stderr. Everything runs under timeouts
# (the whole at most RINGBASE_SMOKE_TIMEOUT seconds, default 120; the node dies with its namespace) and the
# unpacked image is removed.
set -euo pipefail

if [ "${1:-}" = --inside ]; then
  # in the namespaces: $2 the root directory, $3 the port, the rest the command (env ... chroot ... entrypoint)
  root="$2" port="$3"
  shift 3
  ip link set lo up
  mount -t proc proc "$root/proc"
  mount -t tmpfs -o mode=755 tmpfs "$root/dev"
  for dev in null:1:3 zero:1:5 random:1:8 urandom:1:9; do
    IFS=: read -r name major minor <<<"$dev"
    mknod -m 666 "$root/dev/$name" c "$major" "$minor"
  done
  "$@" >"$root/../node.log" 2>&1 &
  node=$!
  base="http://127.0.0.1:$port"
  fail() {
    echo "image-smoke: $*" >&2
    kill -KILL "$node" 2>/dev/null || true
    exit 1
  }
  for _ in $(seq 1 600); do # at most 60 s to get ready
    if [ "$(curl -s -m 2 "$base/ready" || true)" = ready ]; then break; fi
    kill -0 "$node" 2>/dev/null || fail "the node exited before it was ready"
    sleep 0.1
  done
  [ "$(curl -s -m 2 "$base/ready" || true)" = ready ] || fail "the node was not ready within 60 s"
  code="$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X PUT --data-binary 'hello from the image' \
    "$base/v0/entity?id=smoke")"
  [ "$code" = 201 ] || fail "PUT answered $code, not 201"
  echo "image-smoke: PUT /v0/entity?id=smoke: $code"
  body="$(curl -s -m 10 -w '\n%{http_code}' "$base/v0/entity?id=smoke")"
  [ "$body" = $'hello from the image\n200' ] || fail "GET answered '${body//$'\n'/ }', not 200 with the value"
  echo "image-smoke: GET /v0/entity?id=smoke: 200 'hello from the image'"
  status="$(curl -s -m 10 "$base/v0/status")"
  jq -e '.' >/dev/null <<<"$status" || fail "/v0/status is not JSON: $status"
  echo "image-smoke: GET /v0/status: $(jq -c '{version, dataDir: (.dataDir // .data_dir // null)}' <<<"$status")"
  kill -TERM "$node"
  for _ in $(seq 1 300); do kill -0 "$node" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$node" 2>/dev/null; then fail "the node did not stop within 30 s of SIGTERM"; fi
  rc=0
  wait "$node" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "the node exited $rc after SIGTERM"
  echo "image-smoke: stopped by SIGTERM (exit $rc)"
  exit 0
fi

tar_file="${1:?usage: image-smoke.sh IMAGE_TAR [ARGS...]}"
shift
[ -f "$tar_file" ] || { echo "image-smoke: $tar_file is not a file (./mvnw -Pimage -pl ringbase-server package builds it)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "image-smoke: needs root (chroot, unshare)" >&2; exit 2; }
for cmd in unshare chroot ip jq curl tar mknod; do
  command -v "$cmd" >/dev/null || { echo "image-smoke: needs $cmd on the PATH" >&2; exit 2; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/ringbase-image-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
mkdir "$work/archive" "$work/root"
tar -xf "$tar_file" -C "$work/archive"
manifest="$work/archive/manifest.json"
config="$work/archive/$(jq -r '.[0].Config' "$manifest")"
while IFS= read -r layer; do
  tar --warning=no-unknown-keyword -xf "$work/archive/$layer" -C "$work/root"
done < <(jq -r '.[0].Layers[]' "$manifest")
mkdir -p "$work/root/proc" "$work/root/dev"

mapfile -t entrypoint < <(jq -r '.config.Entrypoint[]' "$config")
mapfile -t cmd < <(jq -r '(.config.Cmd // [])[]' "$config")
mapfile -t env < <(jq -r '(.config.Env // [])[]' "$config")
user="$(jq -r '.config.User // "0:0"' "$config")"
workdir="$(jq -r '.config.WorkingDir // "/"' "$config")"
port="$(jq -r '(.config.ExposedPorts // {"8080/tcp": {}}) | keys[0] | split("/")[0]' "$config")"
[ "$#" -gt 0 ] && cmd=("$@")
echo "image-smoke: $(jq -r '.[0].RepoTags[0] // "image"' "$manifest"), $(du -sm "$work/root" | cut -f1) MB unpacked;" \
  "entrypoint ${entrypoint[*]}${cmd[*]:+ ${cmd[*]}}, user $user, port $port"
# chroot's --userspec takes uid:gid; the working directory is entered by the command inside the root
inner=(env -i "${env[@]}" "$(command -v chroot)" --userspec="$user" "$work/root" /bin/bash -c 'cd "$0" && exec "$@"' "$workdir"
  "${entrypoint[@]}" "${cmd[@]}")
rc=0
timeout -k 5 "${RINGBASE_SMOKE_TIMEOUT:-120}" unshare --mount --pid --net --fork --kill-child \
  "$(readlink -f "${BASH_SOURCE[0]}")" --inside "$work/root" "$port" "${inner[@]}" || rc=$?
if [ "$rc" != 0 ]; then
  echo "image-smoke: failed (exit $rc); the node's output:" >&2
  tail -n 40 "$work/node.log" >&2 || true
  exit 1
fi
[ "${RINGBASE_SMOKE_LOG:-0}" = 1 ] && cat "$work/node.log"
echo "image-smoke: passed"
