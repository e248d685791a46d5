#!/usr/bin/env bash
# The tmux versions of CI's matrix besides the system's own (3.3a on bookworm): 3.5a from
# bookworm-backports and 3.8 from sid. Neither is installed: the system tmux and apt's own sources
# stay as they are. Each version gets private apt lists, the .debs of tmux and of every library it
# depends on (recursively: sid's tmux needs sid's libc6 >= 2.42), extracted with `dpkg-deb -x` into
# a prefix of its own, and a wrapper named `tmux` that runs the binary through that prefix's dynamic
# loader. The integration tests put a wrapper first on PATH (ETM_TEST_TMUX_MATRIX, vitest.config.ts),
# so shells in panes find the same tmux by name: a 3.3a client cannot talk to a 3.8 server.
#
# usage: scripts/ci/tmux-matrix.sh ROOT
# Leaves ROOT/bin/<version>/tmux for each version (kept and reused while it still answers -V).
set -euo pipefail

root=${1:?usage: tmux-matrix.sh ROOT}
mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt-get over the version's own sources list, package lists and an empty dpkg status: it resolves
# tmux's dependencies as for an empty system, so every library comes from the version's suites.
private_apt() {
  local dir=$1
  shift
  "$@" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts="$dir/parts" \
    -o Dir::State::Lists="$dir/lists" -o Dir::State::status="$dir/status" -o Dir::Cache="$dir/cache" \
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Default-Release="$release"
}

# A script named tmux that runs the extracted binary with the extracted libraries (and none of
# them leak into what tmux starts: --library-path, not LD_LIBRARY_PATH).
write_wrapper() {
  local prefix=$1 wrapper=$2 loader multiarch
  loader=$(find "$prefix" -name 'ld-linux*.so.*' -type f | sort | head -n 1)
  if [ -z "$loader" ]; then
    echo "tmux-matrix: no dynamic loader among the extracted packages in $prefix" >&2
    return 1
  fi
  multiarch=$(basename "$(dirname "$loader")")
  {
    echo '#!/bin/sh'
    printf 'exec %q --library-path %q %q "$@"\n' "$loader" "$prefix/lib/$multiarch:$prefix/usr/lib/$multiarch" "$prefix/usr/bin/tmux"
  } >"$wrapper"
  chmod +x "$wrapper"
}

# The wrapper answers -V with its version and serves a session on a private socket.
check_wrapper() {
  local version=$1 wrapper=$2 world shown
  [ "$("$wrapper" -V)" = "tmux $version" ] || return 1
  world=$(mktemp -d)
  shown=$(env -i PATH=/usr/bin:/bin TMUX_TMPDIR="$world" LANG=C.UTF-8 TERM=xterm-256color \
    "$wrapper" -f /dev/null -L tmux-matrix-check new-session -d \; display-message -p '#{version}' || true)
  env -i TMUX_TMPDIR="$world" "$wrapper" -L tmux-matrix-check kill-server 2>/dev/null || true
  rm -rf "$world"
  [ "$shown" = "$version" ]
}

# fetch VERSION RELEASE SUITE...: tmux from RELEASE, its libraries from the SUITEs.
fetch() {
  local version=$1 release=$2
  shift 2
  local apt=$root/apt/$version prefix=$root/prefix/$version bin=$root/bin/$version
  if [ -x "$bin/tmux" ] && check_wrapper "$version" "$bin/tmux"; then
    echo "tmux-matrix: tmux $version ready in $bin (kept)"
    return
  fi
  rm -rf "$apt" "$prefix" "$bin"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$prefix" "$bin"
  : >"$apt/status"
  for suite; do echo "deb [signed-by=$keyring] $mirror $suite main"; done >"$apt/sources.list"
  private_apt "$apt" apt-get -qq update
  private_apt "$apt" apt-get -qq -y -o APT::Sandbox::User=root install --download-only --no-install-recommends tmux
  for deb in "$apt/cache/archives"/*.deb; do dpkg-deb -x "$deb" "$prefix"; done
  write_wrapper "$prefix" "$bin/tmux"
  if ! check_wrapper "$version" "$bin/tmux"; then
    echo "tmux-matrix: the tmux from $release in $prefix is not tmux $version or cannot serve a session:" >&2
    "$bin/tmux" -V >&2 || true
    return 1
  fi
  echo "tmux-matrix: tmux $version ready in $bin ($(find "$apt/cache/archives" -name '*.deb' | wc -l) packages from $*)"
}

if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
  echo "tmux-matrix: needs apt-get and dpkg-deb (Debian or Ubuntu)" >&2
  exit 1
fi
fetch 3.5a bookworm-backports bookworm bookworm-backports
fetch 3.8 sid sid
