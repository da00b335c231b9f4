#!/usr/bin/env bash
# Builds the container image and runs compose.yaml end to end (docs/container.md): the server on
# PostgreSQL 16, healthy, answering its issuer metadata, as a non-root user; then removes it all.
# Where no Docker engine answers (`docker info` fails) it hands over to tools/container/build.sh when
# podman and buildah are installed, and otherwise says so and succeeds: the recipe is still checked
# without an engine by tools/container/src/container.test.ts.
#
#   tools/container/check.sh          HOST_PORT=3100 tools/container/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  # Debian's podman and buildah, as CI installs them: build and start the image with those.
  if command -v podman >/dev/null 2>&1 && command -v buildah >/dev/null 2>&1; then
    exec bash tools/container/build.sh
  fi
  echo "no container runtime: image not built"
  exit 0
fi

project="vellum-check-$$"
export HOST_PORT="${HOST_PORT:-3000}"
export VELLUM_PUBLIC_URL="http://localhost:${HOST_PORT}"
# A key for this run only; the volumes holding what it sealed are removed at the end.
VELLUM_MASTER_KEY="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
export VELLUM_MASTER_KEY
# compose.yaml refuses to start without a database password; one for this run only.
POSTGRES_PASSWORD="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
export POSTGRES_PASSWORD
compose() { docker compose --project-name "$project" --file compose.yaml "$@"; }

teardown() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    echo "check: failed; the server's log:"
    compose logs --no-color vellum 2>&1 | tail -n 60 || true
  fi
  compose down --volumes --remove-orphans >/dev/null 2>&1 || true
  exit "$status"
}
trap teardown EXIT

echo "check: building the image (vellum:local)"
docker build --tag vellum:local .

echo "check: starting compose (project $project)"
compose up --detach --no-build

echo "check: waiting for the server's HEALTHCHECK"
container="$(compose ps --quiet vellum)"
health=""
for _ in $(seq 1 90); do
  health="$(docker inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$container")"
  [ "$health" = "healthy" ] && break
  if [ "$health" = "unhealthy" ] || [ "$(docker inspect --format '{{.State.Running}}' "$container")" != "true" ]; then
    echo "check: the server is ${health:-not running}"
    exit 1
  fi
  sleep 2
done
if [ "$health" != "healthy" ]; then
  echo "check: the server was not healthy after 180 s (last: ${health:-no status})"
  exit 1
fi

uid="$(compose exec -T vellum id -u)"
if [ "$uid" = "0" ]; then
  echo "check: the server runs as root"
  exit 1
fi

# One request from outside, through the published port: the default tenant's issuer metadata,
# which the server reads from PostgreSQL.
address="$(compose port vellum 3000)"
url="http://127.0.0.1:${address##*:}/.well-known/openid-credential-issuer"
echo "check: GET $url"
if command -v curl >/dev/null 2>&1; then
  body="$(curl --fail --silent --show-error --max-time 10 "$url")"
else
  body="$(node -e 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); process.stdout.write(await r.text()); }).catch((e) => { console.error(e.message); process.exit(1); })' "$url")"
fi
case "$body" in
  *"\"credential_issuer\":\"${VELLUM_PUBLIC_URL}\""*) ;;
  *)
    echo "check: unexpected issuer metadata: ${body:0:300}"
    exit 1
    ;;
esac

echo "check: image built; compose healthy; issuer metadata served by uid $uid"
