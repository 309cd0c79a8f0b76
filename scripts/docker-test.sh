#!/usr/bin/env bash
# docker-test.sh proves the Docker path end to end with a real engine:
#
#   1. installs Debian's docker.io if there is no dockerd, and starts dockerd
#      (vfs storage, which works inside containers and VMs alike) unless one
#      answers already; one it started is stopped again on exit;
#   2. builds the local Go base image (scripts/go-base-image.sh) and the
#      image from the repository's Dockerfile, tagged $MINISQS_IMAGE, and
#      the same for linux/arm64, tagged $MINISQS_IMAGE-arm64, whose binary
#      it runs under qemu-user (scripts/arm64-test.sh IMAGE);
#   3. prints the image's size (and fails over $MAX_IMAGE_MB), and the median
#      over $RUNS runs of the time from `docker run` to the first answered
#      /health, and of the same for the bare binary;
#   4. runs the testcontainers modules' tests against the image: the Go
#      module's, then the Node.js module's (testcontainers/node).
#
# Run it as root from anywhere: scripts/docker-test.sh
# Settings: MINISQS_IMAGE (minisqs/minisqs:test), RUNS (5), MAX_IMAGE_MB (15),
# DOCKERD_LOG (/tmp/minisqs-dockerd.log), KEEP_DOCKERD=1 to leave a dockerd it
# started running, SKIP_BUILD=1 to reuse an image already built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/lib.sh

image=${MINISQS_IMAGE:-minisqs/minisqs:test}
runs=${RUNS:-5}
max_mb=${MAX_IMAGE_MB:-15}
dockerd_log=${DOCKERD_LOG:-/tmp/minisqs-dockerd.log}

say() { echo "docker-test: $*"; }

# --- 1. Docker engine ------------------------------------------------------

if ! command -v dockerd >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    say "no dockerd; run as root to install docker.io" >&2
    exit 1
  fi
  say "installing docker.io"
  # Another process may hold apt's lock; wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq docker.io >/dev/null
fi

dockerd_pid=
cleanup() {
  local rc=$?
  if [ -n "${timing_cid:-}" ]; then docker rm -f "$timing_cid" >/dev/null 2>&1 || true; fi
  if [ -n "${binary_pid:-}" ]; then kill "$binary_pid" 2>/dev/null || true; fi
  if [ -n "$dockerd_pid" ] && [ -z "${KEEP_DOCKERD:-}" ]; then
    say "stopping the dockerd it started (pid $dockerd_pid)"
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  exit $rc
}
trap cleanup EXIT

if ! docker info >/dev/null 2>&1; then
  say "starting dockerd --storage-driver=vfs (log: $dockerd_log)"
  dockerd --storage-driver=vfs >"$dockerd_log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then
      say "dockerd exited; its log:" >&2
      tail -n 30 "$dockerd_log" >&2
      exit 1
    fi
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { say "dockerd did not answer within 60s" >&2; tail -n 30 "$dockerd_log" >&2; exit 1; }
fi
say "docker engine $(docker version --format '{{.Server.Version}}')"

# --- 2. Images -------------------------------------------------------------

# The release is declared once, in the command's source; the commit is this
# checkout's.
version=$(sed -n 's/^const release = "\(.*\)"$/\1/p' cmd/minisqs/version.go)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)

go_image=
base_image() {
  [ -n "$go_image" ] || go_image=$(scripts/go-base-image.sh)
}

if [ -n "${SKIP_BUILD:-}" ] && docker image inspect "$image" >/dev/null 2>&1; then
  say "SKIP_BUILD: using the $image there is"
else
  # Without buildx the docker CLI falls back to the classic builder, unless
  # told to use BuildKit; the Dockerfile needs nothing BuildKit-only.
  docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0
  base_image
  say "building $image with GO_IMAGE=$go_image (log: /tmp/minisqs-docker-build.log)"
  start=$(date +%s)
  docker build --build-arg GO_IMAGE="$go_image" --build-arg VERSION="$version" --build-arg COMMIT="$commit" \
    -t "$image" . >/tmp/minisqs-docker-build.log 2>&1 || {
    tail -n 40 /tmp/minisqs-docker-build.log >&2
    exit 1
  }
  say "built in $(($(date +%s) - start))s"
fi

# engine_build PLATFORM TAG: builds the Dockerfile for PLATFORM with
# dockerd's own BuildKit, through the Engine API, for machines without
# buildx (the docker CLI needs buildx for BuildKit, and the classic builder
# cannot build for another platform). The context is the files git knows
# in this checkout: the CLI is what applies .dockerignore, and the build
# reads only the server's sources anyway.
engine_build() {
  local sock=/var/run/docker.sock query=version=2 kv
  case ${DOCKER_HOST:-} in
    '') ;;
    unix://*) sock=${DOCKER_HOST#unix://} ;;
    *) say "DOCKER_HOST=$DOCKER_HOST: building for $1 needs docker buildx or a local socket" >&2; return 1 ;;
  esac
  if ! command -v curl >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq curl >/dev/null
  fi
  for kv in "platform=$1" "t=$2" \
    "buildargs={\"GO_IMAGE\":\"$go_image\",\"VERSION\":\"$version\",\"COMMIT\":\"$commit\"}"; do
    query+="&${kv%%=*}=$(urlencode "${kv#*=}")"
  done
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - |
    curl -sS --fail --unix-socket "$sock" -X POST -H 'Content-Type: application/x-tar' \
      --data-binary @- "http://localhost/build?$query"
}

# urlencode TEXT: TEXT with every byte but letters, digits and -._~ as %XX.
urlencode() {
  local s=$1 out= c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [a-zA-Z0-9.~_-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  echo "$out"
}

# The arm64 image, from the same Dockerfile: its build stage runs on this
# machine's platform and Go cross-compiles, so building it needs no
# emulation; its binary then runs under qemu-user.
arm_image=${image}-arm64
if [ -n "${SKIP_BUILD:-}" ] && docker image inspect "$arm_image" >/dev/null 2>&1; then
  say "SKIP_BUILD: using the $arm_image there is"
else
  base_image
  say "building $arm_image for linux/arm64 (log: /tmp/minisqs-docker-build-arm64.log)"
  start=$(date +%s)
  if docker buildx version >/dev/null 2>&1; then
    docker buildx build --platform linux/arm64 --load --build-arg GO_IMAGE="$go_image" --build-arg VERSION="$version" \
      --build-arg COMMIT="$commit" -t "$arm_image" . >/tmp/minisqs-docker-build-arm64.log 2>&1 || build_failed=1
  else
    engine_build linux/arm64 "$arm_image" >/tmp/minisqs-docker-build-arm64.log 2>&1 || build_failed=1
    # The Engine API answers 200 and reports a failed build in the stream.
    grep -q '"error"' /tmp/minisqs-docker-build-arm64.log && build_failed=1
  fi
  if [ -n "${build_failed:-}" ]; then
    say "the linux/arm64 build failed; its log ends:" >&2
    grep -o '"error":"[^"]*"' /tmp/minisqs-docker-build-arm64.log >&2 || tail -c 2000 /tmp/minisqs-docker-build-arm64.log >&2
    exit 1
  fi
  say "built in $(($(date +%s) - start))s"
fi
scripts/arm64-test.sh "$arm_image"

# --- 3. Figures ------------------------------------------------------------

# What users pin: the labels and `minisqs version` must name this release and
# commit.
label_version=$(docker image inspect --format '{{index .Config.Labels "org.opencontainers.image.version"}}' "$image")
label_commit=$(docker image inspect --format '{{index .Config.Labels "org.opencontainers.image.revision"}}' "$image")
printed=$(docker run --rm "$image" version)
say "image: $printed (labels: version $label_version, revision $label_commit)"
if [ "$label_version" != "$version" ] || [ "$label_commit" != "$commit" ] || [[ $printed != "minisqs $version, commit $commit,"* ]]; then
  say "the image's labels or version do not name release $version, commit $commit" >&2
  exit 1
fi

size=$(docker image inspect --format '{{.Size}}' "$image")
size_mb=$(awk -v b="$size" 'BEGIN { printf "%.2f", b / 1000000 }')
say "image size: ${size_mb} MB ($size bytes; target under ${max_mb} MB)"
if [ "$size" -ge $((max_mb * 1000000)) ]; then
  say "image is over ${max_mb} MB" >&2
  exit 1
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

docker_times=()
for i in $(seq 1 "$runs"); do
  port=$(free_port)
  t0=$(now_ms)
  timing_cid=$(docker run -d -p "127.0.0.1:$port:9324" "$image")
  wait_healthy "$port" || { say "container did not answer /health" >&2; docker logs "$timing_cid" >&2; exit 1; }
  docker_times+=($(($(now_ms) - t0)))
  docker rm -f "$timing_cid" >/dev/null
  timing_cid=
done
say "docker run → first /health answer: median $(printf '%s\n' "${docker_times[@]}" | median) ms over $runs runs (each: ${docker_times[*]} ms)"

bin=$(mktemp -d)/minisqs
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/minisqs
binary_times=()
for i in $(seq 1 "$runs"); do
  port=$(free_port)
  t0=$(now_ms)
  "$bin" --addr "127.0.0.1:$port" --log-level warn &
  binary_pid=$!
  wait_healthy "$port" || { say "binary did not answer /health" >&2; exit 1; }
  binary_times+=($(($(now_ms) - t0)))
  kill "$binary_pid"
  wait "$binary_pid" || true
  binary_pid=
done
rm -rf "$(dirname "$bin")"
say "binary start → first /health answer: median $(printf '%s\n' "${binary_times[@]}" | median) ms over $runs runs (each: ${binary_times[*]} ms)"

# --- 4. The testcontainers modules' tests ---------------------------------

say "testcontainers module tests against $image"
cd "$root/testcontainers"
export MINISQS_IMAGE="$image"
export MINISQS_REQUIRE_DOCKER=1            # fail, not skip, without an engine
export TESTCONTAINERS_RYUK_DISABLED=true   # the reaper's image cannot be pulled here
export TESTCONTAINERS_HOST_OVERRIDE=localhost
go vet ./...
go test -race -count=1 ./...

say "Node.js testcontainers module tests against $image"
cd "$root/testcontainers/node"
command -v npm >/dev/null || { say "no npm: the Node.js module's tests need Node.js 20.19 or later with npm" >&2; exit 1; }
# --ignore-scripts: no dependency's install script runs (ssh2's optional
# native build would want Node's headers from outside the registry); npm
# test compiles the module itself.
npm ci --ignore-scripts --no-audit --no-fund
npm test
