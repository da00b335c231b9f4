#!/usr/bin/env bash
# Packs every public package with npm and with pnpm, and checks what a registry would get
# (docs/decisions.md "Packaging (issue 28)"): both tools write the same manifest, publint finds no
# error, and attw resolves every entry point's types (profile esm-only: the packages are ES modules
# only, so node10 and require() resolution are not offered, by design).
#
# Run after `pnpm run build`: each package's prepack then reuses dist/ (VELLUM_PACK_PREBUILT=1).
# Usage: bash tools/checks/packages.sh [package-dir ...]   (default: every public package)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bin="$root/node_modules/.bin"
export VELLUM_PACK_PREBUILT=1

if [ "$#" -gt 0 ]; then
  dirs=("$@")
else
  mapfile -t dirs < <(node -e '
    const { readdirSync, readFileSync, existsSync } = require("node:fs");
    for (const d of readdirSync("packages")) {
      const f = `packages/${d}/package.json`;
      if (existsSync(f) && JSON.parse(readFileSync(f, "utf8")).private !== true) console.log(`packages/${d}`);
    }')
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for dir in "${dirs[@]}"; do
  name="$(node -p "require('./$dir/package.json').name")"
  echo "== $name ($dir)"
  mkdir -p "$work/$dir/npm" "$work/$dir/pnpm"
  before="$(cat "$dir/package.json")"
  (cd "$dir" && npm pack --silent --pack-destination "$work/$dir/npm" >/dev/null)
  (cd "$dir" && "$bin/pnpm" pack --pack-destination "$work/$dir/pnpm" >/dev/null)
  npm_tgz="$(ls "$work/$dir/npm"/*.tgz)"
  pnpm_tgz="$(ls "$work/$dir/pnpm"/*.tgz)"
  if [ -e "$dir/package.json.source" ] || [ "$(cat "$dir/package.json")" != "$before" ]; then
    echo "   postpack did not restore $dir/package.json"; failed=1
  fi
  # The same files, and the same manifest (keys in any order), whichever tool packed.
  if ! node -e '
    const { execFileSync } = require("node:child_process");
    const [a, b] = process.argv.slice(1);
    const list = (t) => execFileSync("tar", ["tzf", t], { encoding: "utf8" }).split("\n").filter(Boolean).sort().join("\n");
    const sorted = (v) => Array.isArray(v) ? v.map(sorted) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v;
    const manifest = (t) => JSON.stringify(sorted(JSON.parse(execFileSync("tar", ["xzOf", t, "package/package.json"], { encoding: "utf8" }))), null, 1);
    if (list(a) !== list(b)) { console.error("   npm and pnpm packed different files:\n" + list(a) + "\n--\n" + list(b)); process.exit(1); }
    if (manifest(a) !== manifest(b)) { console.error("   npm and pnpm packed different manifests:\n" + manifest(a) + "\n--\n" + manifest(b)); process.exit(1); }
    const m = JSON.parse(execFileSync("tar", ["xzOf", a, "package/package.json"], { encoding: "utf8" }));
    const raw = JSON.stringify(m);
    if (/"(workspace|catalog):/.test(raw)) { console.error("   a workspace: or catalog: specifier is left in the manifest"); process.exit(1); }
    for (const f of ["package/LICENSE", "package/README.md"]) if (!list(a).split("\n").includes(f)) { console.error(`   ${f} is not in the tarball`); process.exit(1); }
  ' "$npm_tgz" "$pnpm_tgz"; then failed=1; fi
  "$bin/publint" run "$pnpm_tgz" --level warning || failed=1
  "$bin/attw" "$pnpm_tgz" --profile esm-only --format table-flipped --no-emoji --no-color || failed=1
done
if [ "$failed" -ne 0 ]; then
  echo "packages: some check failed (see above)"
  exit 1
fi
echo "packages: ${#dirs[@]} public packages pack cleanly with npm and pnpm"
