# minisqs: an Amazon SQS emulator in a scratch image.
#
#   docker build -t minisqs/minisqs .
#   docker run --rm -p 9324:9324 minisqs/minisqs
#
# GO_IMAGE is the build stage's Go toolchain. It defaults to the official
# image; machines that cannot reach a registry build a local one
# (scripts/go-base-image.sh) and pass --build-arg GO_IMAGE=<its tag>.
#
# One build stage serves every platform: it runs on the builder's own
# platform and Go cross-compiles, so an arm64 image needs no emulation to
# build (docker buildx build --platform linux/amd64,linux/arm64 .).
ARG GO_IMAGE=golang:1.26
# BuildKit sets BUILDPLATFORM, and this keeps its value. The classic builder
# (DOCKER_BUILDKIT=0) sets none, and FROM --platform needs one: "linux" alone
# is Linux on the builder's own architecture.
ARG BUILDPLATFORM=${BUILDPLATFORM:-linux}

FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
# BuildKit sets these from --platform. The classic builder leaves them
# empty, and an empty GOOS or GOARCH is Go's default: the builder's own.
ARG TARGETOS
ARG TARGETARCH
# The commit goes into the binary (`minisqs version`); the build context has
# no .git to read it from.
ARG COMMIT=unknown
WORKDIR /src
# No separate `go mod download` layer: go.mod also lists the compat tests'
# clients (aws-sdk-go alone is a 30 MB download), and go build fetches only
# the modules the server imports.
COPY . .
# A static binary, and the database directory owned by the user the server
# runs as, so that a fresh volume mounted at /data is writable. One RUN and
# one COPY keep the layers few (each is a full copy on the vfs driver CI uses).
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -buildvcs=false -ldflags "-s -w -X main.commit=${COMMIT}" -o /rootfs/minisqs ./cmd/minisqs \
    && mkdir /rootfs/data && chown 65532:65532 /rootfs/data

FROM scratch
ARG VERSION=unknown
ARG COMMIT=unknown
LABEL org.opencontainers.image.title="minisqs" \
      org.opencontainers.image.description="An Amazon SQS emulator" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
COPY --from=build /rootfs/ /
USER 65532:65532
ENV MINISQS_ADDR=0.0.0.0:9324
EXPOSE 9324
# Keep queues and messages with --db /data/minisqs.db (or MINISQS_DB).
VOLUME /data
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 CMD ["/minisqs", "healthcheck"]
ENTRYPOINT ["/minisqs"]
