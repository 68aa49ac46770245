#!/bin/bash
# Fetch Debian's rdma-core 44 packages and unpack them privately under DEST
# (default: build/reference).  Nothing is installed system-wide: the
# reference build is a test oracle (layouts, symbol imports, programs to run
# on our libraries), never something our build compiles or links against.
#
#   usage: tests/reference/fetch.sh [DEST [STAMP]]
#
# STAMP, when given, is touched on success (Meson's custom_target output).
# DEST/root    the unpacked packages (usr/lib/x86_64-linux-gnu, usr/bin, ...)
# DEST/.done   what was fetched; a second run with the same list is a no-op
set -euo pipefail

DEST=${1:-build/reference}
STAMP=${2:-}
# libibumad3: perftest needs it (it is rdma-core's too, so it stays private)
PKGS="libibverbs1 librdmacm1 ibverbs-providers libibverbs-dev librdmacm-dev
      ibverbs-utils rdmacm-utils perftest libibumad3"
VERSION=44.0-2

mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd -P)
WANT="$(echo $PKGS) $VERSION"
if [ "$(head -n 1 "$DEST/.done" 2>/dev/null)" = "$WANT" ]; then
    [ -z "$STAMP" ] || touch "$STAMP"
    exit 0
fi

want=()
for p in $PKGS; do
    case $p in perftest) want+=("$p") ;; *) want+=("$p=$VERSION") ;; esac
done

dl=$DEST/debs
rm -rf "$dl" "$DEST/root" && mkdir -p "$dl"
if ! (cd "$dl" && apt-get download -q "${want[@]}" >/dev/null 2>&1); then
    # a fresh machine may have no package lists yet
    [ "$(id -u)" = 0 ] && apt-get update -q >/dev/null 2>&1 || true
    (cd "$dl" && apt-get download -q "${want[@]}" >/dev/null) ||
        { echo "fetch.sh: apt-get download failed for: ${want[*]}" >&2; exit 1; }
fi
for d in "$dl"/*.deb; do dpkg -x "$d" "$DEST/root"; done
{ echo "$WANT"
  for d in "$dl"/*.deb; do dpkg-deb -W "$d"; done; } > "$DEST/.done.tmp"
rm -rf "$dl"
mv "$DEST/.done.tmp" "$DEST/.done"
[ -z "$STAMP" ] || touch "$STAMP"
