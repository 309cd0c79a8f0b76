#!/usr/bin/env bash
# go-base-image.sh builds a local stand-in for the official golang image, for
# machines that cannot pull from an image registry (CI here): a static
# busybox for the Dockerfile's RUN lines, this machine's Go toolchain, its CA
# certificates and its module proxy setting, and nothing else.
#
#   scripts/go-base-image.sh [TAG]    default TAG: minisqs/go-base:<go version>
#
# It prints the tag, to pass on as docker build --build-arg GO_IMAGE=<tag>.
# An image already there under that tag is kept; REBUILD=1 makes it anew.
set -euo pipefail

gover=$(go env GOVERSION)
tag=${1:-minisqs/go-base:${gover#go}}

if [ -z "${REBUILD:-}" ] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag"
  exit 0
fi

# Debian's busybox-static: the image has no libc for a dynamic one.
if ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed'; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 busybox-static >/dev/null
fi

rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
mkdir -p "$rootfs"/{bin,tmp,root,go,usr/local,etc/ssl/certs}
chmod 1777 "$rootfs/tmp"
cp /bin/busybox "$rootfs/bin/busybox"
for applet in sh ls cat cp mv rm mkdir ln env echo test true false chmod chown find grep sed tar; do
  ln -s busybox "$rootfs/bin/$applet"
done
cp -a "$(go env GOROOT)" "$rootfs/usr/local/go"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

# The same environment as the official image, plus this machine's module
# proxy so that go mod download inside the build reaches what the host does.
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/go/bin:/go/bin:/bin' \
  --change 'ENV GOPATH=/go' \
  --change 'ENV GOTOOLCHAIN=local' \
  --change "ENV GOPROXY=$(go env GOPROXY)" \
  --change "ENV GOSUMDB=$(go env GOSUMDB)" \
  --change 'WORKDIR /go' \
  --message "Go ${gover#go} from the build machine, for minisqs's Dockerfile" \
  - "$tag" >/dev/null
echo "$tag"
