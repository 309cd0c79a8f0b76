#!/usr/bin/env bash
# arm64-test.sh proves that minisqs runs on linux/arm64 from an amd64
# machine: it runs the arm64 binary under Debian's qemu-user (installed when
# missing) and checks that it names its platform, answers /health, and
# serves a CreateQueue, SendMessage and ReceiveMessage from the aws CLI.
#
#   scripts/arm64-test.sh          the binary go build cross-compiles here
#   scripts/arm64-test.sh IMAGE    the /minisqs inside IMAGE, a linux/arm64
#                                  image (scripts/docker-test.sh builds one)
#
# On an arm64 machine the binary runs as it is, without qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

say() { echo "arm64-test: $*"; }

image=${1:-}
work=$(mktemp -d)
server_pid=
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT

# --- the emulator ----------------------------------------------------------

run=()
if [ "$(uname -m)" != aarch64 ]; then
  qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
  if [ -z "$qemu" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      say "no qemu-aarch64; run as root to install qemu-user" >&2
      exit 1
    fi
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    # Debian ships qemu-aarch64 in qemu-user, and a static build of it in
    # qemu-user-static; take whichever this release has.
    # (The policy is read whole before it is matched: grep -q would stop
    # reading at the match, and apt-cache, killed by SIGPIPE, fail the
    # pipe under pipefail.)
    for pkg in qemu-user qemu-user-static; do
      policy=$(apt-cache policy "$pkg")
      if [[ $policy =~ Candidate:\ [0-9] ]]; then
        say "installing $pkg"
        DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$pkg" >/dev/null
        break
      fi
    done
    qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
    [ -n "$qemu" ] || { say "neither qemu-user nor qemu-user-static gave a qemu-aarch64" >&2; exit 1; }
  fi
  run=("$qemu")
  say "emulator: $("$qemu" --version | head -n 1)"
fi

# --- the binary ------------------------------------------------------------

bin=$work/minisqs-arm64
if [ -n "$image" ]; then
  arch=$(docker image inspect --format '{{.Os}}/{{.Architecture}}' "$image")
  [ "$arch" = linux/arm64 ] || { say "$image is $arch, not linux/arm64" >&2; exit 1; }
  cid=$(docker create "$image" 2>/dev/null)
  docker cp "$cid:/minisqs" - | tar -xO >"$bin"
  docker rm "$cid" >/dev/null
  say "binary: /minisqs from $image"
else
  CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/minisqs
  say "binary: go build for linux/arm64"
fi
chmod +x "$bin"

version=$("${run[@]}" "$bin" version)
say "$version"
[[ $version == *" linux/arm64"* ]] || { say "the binary does not say linux/arm64" >&2; exit 1; }

# --- the server ------------------------------------------------------------

port=$(free_port)
t0=$(now_ms)
"${run[@]}" "$bin" --addr "127.0.0.1:$port" --log-level warn &
server_pid=$!
wait_healthy "$port" 60 || { say "the arm64 server did not answer /health" >&2; exit 1; }
say "first /health answer $(($(now_ms) - t0)) ms after start"

aws=$(command -v aws || true)
[ -n "$aws" ] || { say "no aws CLI (scripts/test installs Debian's awscli)" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
sqs() { "$aws" --endpoint-url "http://127.0.0.1:$port" --output text sqs "$@"; }

url=$(sqs create-queue --queue-name arm64-check --query QueueUrl)
sent=$(sqs send-message --queue-url "$url" --message-body "hello from arm64" --query MessageId)
got=$(sqs receive-message --queue-url "$url" --wait-time-seconds 5 --query 'Messages[0].[MessageId,Body]')
if [ "$got" != "$sent	hello from arm64" ]; then
  say "received '$got', want message $sent, 'hello from arm64'" >&2
  exit 1
fi
say "ok: /health, CreateQueue, SendMessage and ReceiveMessage on linux/arm64"
