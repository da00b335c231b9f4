# syntax=docker/dockerfile:1
# The Vellum reference server as a container image (docs/container.md).
#
#   docker build -t vellum .
#   docker run -p 3000:3000 -v vellum-data:/var/lib/vellum vellum
#
# Node 24 runs the TypeScript sources directly (type stripping), as `npm start` does, so the image
# holds the sources and their production dependencies and nothing is compiled.

# The base, pinned by digest: the official image's multi-platform index for node:24-bookworm-slim
# (Node 24.18.1, built 2026-07-30) as the Docker Official Images' own record lists it
# (github.com/docker-library/repo-info, repos/node/remote/24-bookworm-slim.md); the machines this was
# written on cannot reach the registry to read it; confirm or update it with
# `docker buildx imagetools inspect node:24-bookworm-slim`. tools/container/build.sh builds a
# substitute from Debian packages where it cannot be pulled, and says so.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:235600a8101ab264e117b1768e925532262668dc9b581ef1dd7d96ced463b8e7

# ---- build: install the production dependencies with the pinned pnpm and the lockfile ----------
FROM ${NODE_IMAGE} AS build
# corepack fetches the pnpm named by package.json's "packageManager" without asking.
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    CI=true
WORKDIR /app
# better-sqlite3 has a binding.gyp, so pnpm runs node-gyp for it, and node-gyp wants Python, make and
# Node's headers even where the package's prebuilt binary leaves it nothing to compile; the slim
# image has neither Python nor make, and its headers (/usr/local/include/node) are named here so
# that node-gyp does not download them. No compiler: a platform without a prebuilt binary still
# fails the build (the check below).
ENV npm_config_nodedir=/usr/local
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make \
    && rm -rf /var/lib/apt/lists/*
RUN corepack enable
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# corepack downloads that pnpm once, into this layer.
RUN pnpm --version
COPY packages packages
COPY apps apps
COPY tools tools
COPY examples examples
# Only the server and the packages it depends on, without devDependencies (--filter-prod follows
# no devDependency edge, so the test helpers and vitest stay out). pnpm-workspace.yaml's
# onlyBuiltDependencies decides which install scripts may run: better-sqlite3 ships prebuilt N-API
# binaries for linux x64 and arm64 (glibc and musl) in its package, so nothing is compiled here;
# cbor-extract's build stays refused, and cbor-x uses its JavaScript decoder instead. pnpm's store
# is a build cache, not a layer: a change to the sources reinstalls from it without downloading,
# and a pruned cache only means downloading again.
RUN --mount=type=cache,id=vellum-pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --prod --store-dir /pnpm/store --filter-prod '@vellum/server...'
# Fail the build, not the first start, when the SQLite binding cannot load on this platform.
RUN cd packages/storage-sql \
    && node -e "const D = require('better-sqlite3'); const db = new D(':memory:'); db.prepare('select 1').get(); db.close()"

# ---- runtime: the sources and node_modules, owned by root and run by an unprivileged user -------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    VELLUM_HOST=0.0.0.0 \
    VELLUM_PORT=3000 \
    VELLUM_DATA_DIR=/var/lib/vellum
WORKDIR /app
COPY --from=build /app /app
# The official image's `node` user (uid 1000) may write only the data directory. USER is numeric so
# that an orchestrator's "run as non-root" check can verify it without reading /etc/passwd.
RUN mkdir -p /var/lib/vellum && chown 1000:1000 /var/lib/vellum && chmod 700 /var/lib/vellum
USER 1000:1000
# The SQLite database (vellum.db) and, when VELLUM_MASTER_KEY is unset, the development master key.
VOLUME ["/var/lib/vellum"]
EXPOSE 3000
# Liveness: GET /health on this container's own port (tools/container/healthcheck.mjs).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "/app/tools/container/healthcheck.mjs"]
ARG NODE_IMAGE
# OCI annotations (image-spec "Pre-Defined Annotation Keys"), last so that a new revision rebuilds
# no other layer. Version and revision come from the build (`--build-arg VERSION=…
# --build-arg REVISION=$(git rev-parse HEAD)`) and stay empty otherwise.
ARG VERSION=""
ARG REVISION=""
LABEL org.opencontainers.image.title="Vellum" \
      org.opencontainers.image.description="Vellum reference server: an OpenID4VCI credential issuer (vellum serve) and its CLI" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
# Node as PID 1 is fine here: `vellum serve` handles SIGTERM and SIGINT itself and drains requests.
# Other commands replace `serve`: `docker run --rm -v vellum-data:/var/lib/vellum vellum tenants list`.
ENTRYPOINT ["node", "/app/apps/server/src/main.ts"]
CMD ["serve"]
