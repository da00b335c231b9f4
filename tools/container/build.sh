#!/usr/bin/env bash
# Builds the image with Debian's buildah and starts it with Debian's podman (docs/container.md
# "Building and starting the image in CI"): the server on SQLite, `GET /ready`, an admin token
# request with the credentials the first start prints, then stop and remove.
#
# The Dockerfile pins its base by digest. Where that image cannot be pulled (no registry but npm's
# and Debian's is reachable on the machines CI uses), a substitute is built from Debian packages
# (debootstrap, bookworm, minbase), given this machine's Node 24 and corepack from the npm registry,
# imported, tagged with the base's name without the digest, and passed as NODE_IMAGE; the output
# says so. Where the tools are missing it says so and succeeds; where the image builds but no
# container can start, it prints the engine's error and fails.
#
#   tools/container/build.sh                 (as root; needs podman, buildah, debootstrap, node 24, npm)
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in podman buildah; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "container: no $tool: image not built (apt-get install podman buildah runc debootstrap)"
    exit 0
  fi
done

image="localhost/vellum:ci"
started=$SECONDS
elapsed() { echo "$((SECONDS - started)) s"; }

# crun 1.8 (Debian 12) refuses a cgroup v1/v2 hybrid host ("cgroups in hybrid mode not supported");
# runc runs there. Use runc when it is installed.
runtime=()
if command -v runc >/dev/null 2>&1; then runtime=(--runtime runc); fi
# The default limits (raised above this machine's hard limits) need a capability these machines
# withhold ("setrlimit `RLIMIT_NOFILE`: Operation not permitted"), so give ones within them.
limits=(--ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit "nproc=4096:4096")

# ---- the base image -------------------------------------------------------------------------
pinned="$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)"
named="${pinned%@*}"
build_args=()
if podman image exists "$pinned"; then
  echo "container: base $pinned present"
elif pull_error="$(timeout 60 podman pull --quiet "$pinned" 2>&1 >/dev/null)"; then
  echo "container: base $pinned pulled"
else
  echo "container: base $pinned cannot be pulled: $(printf '%s' "$pull_error" | tail -n 1)"
  build_args=(--build-arg "NODE_IMAGE=$named")
  if [ "$(podman image inspect --format '{{index .Labels "org.vellum.substitute"}}' "$named" 2>/dev/null || true)" = "debian-bookworm-minbase" ]; then
    echo "container: SUBSTITUTE base: using $named built earlier from Debian packages (not the pinned image)"
  else
    echo "container: SUBSTITUTE base: building $named from Debian packages (debootstrap bookworm minbase) with Node $(node --version) and corepack from npm, NOT the pinned image"
    command -v debootstrap >/dev/null 2>&1 || { echo "container: no debootstrap: cannot build the substitute"; exit 1; }
    node_bin="$(command -v node)"
    [ "$(node -p 'process.versions.node.split(".")[0]')" = "24" ] || { echo "container: the substitute needs Node 24 on PATH"; exit 1; }
    work="$(mktemp -d /var/tmp/vellum-base.XXXXXX)"
    trap 'rm -rf "$work"' EXIT
    nice -n 19 debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
      { tail -n 20 "$work/debootstrap.log"; exit 1; }
    install -m 0755 "$node_bin" "$work/rootfs/usr/local/bin/node"
    # Node's headers, where the official image has them (node-gyp reads them there, Dockerfile).
    mkdir -p "$work/rootfs/usr/local/include"
    cp -r "$(dirname "$node_bin")/../include/node" "$work/rootfs/usr/local/include/node"
    npm install --silent --no-audit --no-fund --no-save --prefix "$work/corepack" corepack@0.36 >/dev/null
    mkdir -p "$work/rootfs/usr/local/lib/node_modules"
    cp -r "$work/corepack/node_modules/corepack" "$work/rootfs/usr/local/lib/node_modules/corepack"
    ln -s ../lib/node_modules/corepack/dist/corepack.js "$work/rootfs/usr/local/bin/corepack"
    # This machine's certificate authorities: where its egress to the npm registry passes a TLS
    # proxy, corepack and pnpm in the build must trust what the host trusts.
    ca="${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}"
    mkdir -p "$work/rootfs/etc/ssl/certs"
    [ -f "$ca" ] && cp "$ca" "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
    # The npm registry as these machines reach it serves package metadata without signatures, so
    # corepack's check of pnpm's signature fails ("No compatible signature found in package
    # metadata"); the substitute turns that check off (COREPACK_INTEGRITY_KEYS=0, below).
    # The official image's user: node, uid and gid 1000.
    chroot "$work/rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
    rm -rf "$work/rootfs"/var/cache/apt/archives/*.deb "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/debootstrap
    tar -C "$work/rootfs" --numeric-owner -cf - . |
      podman import --quiet \
        --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change "ENV=NODE_VERSION=$(node -p 'process.versions.node')" \
        --change 'ENV=NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
        --change 'ENV=COREPACK_INTEGRITY_KEYS=0' \
        --change 'LABEL=org.vellum.substitute=debian-bookworm-minbase' \
        --change 'CMD=["node"]' \
        - "$named" >/dev/null
    rm -rf "$work"
    trap - EXIT
    echo "container: substitute base $named built ($(elapsed))"
  fi
fi

# ---- build ------------------------------------------------------------------------------------
echo "container: buildah bud -t $image ${build_args[*]} ."
build_log="$(mktemp)"
# --format docker keeps the HEALTHCHECK, which the OCI image format has no field for.
if ! nice -n 19 buildah bud "${runtime[@]}" "${limits[@]}" --format docker --layers --force-rm --pull=missing \
  --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || true)" --tag "$image" "${build_args[@]}" . >"$build_log" 2>&1; then
  tail -n 40 "$build_log"
  echo "container: build failed"
  exit 1
fi
rm -f "$build_log"
echo "container: image $image built ($(elapsed))"

# ---- start it on SQLite, /ready, a token request, stop ---------------------------------------
name="vellum-ci-$$"
port="${HOST_PORT:-3300}"
teardown() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    echo "container: failed; the server's log:"
    podman logs "$name" 2>&1 | grep -v clientSecret | tail -n 40 || true
  fi
  podman rm --force --time 20 "$name" >/dev/null 2>&1 || true
  podman volume rm --force "$name-data" >/dev/null 2>&1 || true
  exit "$status"
}
trap teardown EXIT

# Started as CI's root, with runc (above) and the limits (above); the HEALTHCHECK has no timer here
# (podman's need systemd). A master key for this run only; the volume holding what it sealed is removed at the end.
key="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
if ! run_error="$(podman "${runtime[@]}" run --detach --name "$name" \
  "${limits[@]}" --health-interval disable \
  --publish "127.0.0.1:$port:3000" --volume "$name-data:/var/lib/vellum" \
  --env "VELLUM_MASTER_KEY=$key" --env "VELLUM_PUBLIC_URL=http://localhost:$port" \
  "$image" 2>&1 >/dev/null)"; then
  echo "container: the image was built, but no container can start here: $run_error"
  exit 1
fi
echo "container: started $name ($(podman inspect --format '{{.State.Status}}, user {{.Config.User}}' "$name"))"

# The checks, in Node (curl is not on every machine). The credentials stay in this process.
PORT="$port" NAME="$name" node -e '
  const base = `http://127.0.0.1:${process.env.PORT}`;
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  (async () => {
    let ready;
    for (let i = 0; i < 90; i++) {
      try { ready = await fetch(`${base}/ready`); if (ready.status === 200) break; } catch {}
      await wait(1000);
    }
    if (ready?.status !== 200) throw new Error(`GET /ready: ${ready ? ready.status : "no answer"} after 90 s`);
    console.log(`container: GET /ready -> ${ready.status} ${JSON.stringify(await ready.json())}`);
    const log = require("child_process").execFileSync("podman", ["logs", process.env.NAME], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    // The first start prints them as an indented JSON object of its own lines.
    const printed = (log.match(/^\{\n[\s\S]*?\n\}$/gm) ?? []).filter((block) => block.includes("clientSecret"));
    if (printed.length === 0) throw new Error("the first start printed no admin credentials");
    const c = JSON.parse(printed[0]);
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: c.clientId, client_secret: c.clientSecret, audience: c.audience }),
    });
    const body = await res.json();
    if (res.status !== 200 || typeof body.access_token !== "string") throw new Error(`POST /oauth/token: ${res.status} ${JSON.stringify(body.error ?? body).slice(0, 200)}`);
    console.log(`container: POST /oauth/token (client_credentials, the first start'"'"'s admin client) -> ${res.status}, token_type ${body.token_type}, expires_in ${body.expires_in}, access_token of ${body.access_token.length} characters`);
  })().catch((e) => { console.error(`container: ${e.message}`); process.exit(1); });
'
# The image's HEALTHCHECK, run once by hand: these machines have no systemd for podman's timers.
podman healthcheck run "$name" >/dev/null || { echo "container: the image's HEALTHCHECK failed"; exit 1; }
echo "container: the image's HEALTHCHECK (GET /health) passes"
uid="$(podman exec "$name" id -u)"
[ "$uid" != "0" ] || { echo "container: the server runs as root"; exit 1; }
podman stop --time 20 "$name" 2> >(grep -v "unable to get systemd connection" >&2) >/dev/null
echo "container: stopped ($(podman inspect --format 'exit code {{.State.ExitCode}}' "$name")); uid $uid; total $(elapsed)"
