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

# shellcheck source=tests/reference/fetch-lib.sh
. "$(dirname "$0")/fetch-lib.sh"

# libibumad3: perftest needs it (it is rdma-core's too, so it stays private)
PKGS="libibverbs1 librdmacm1 ibverbs-providers libibverbs-dev librdmacm-dev
      ibverbs-utils rdmacm-utils perftest libibumad3"
VERSION=44.0-2
# "lists": the key changed when the per-package file lists were added, so
# that trees fetched before are fetched again
fetch_start "${1:-build/reference}" "${2:-}" "$(echo $PKGS) $VERSION lists"

want=()
for p in $PKGS; do
    case $p in perftest) want+=("$p") ;; *) want+=("$p=$VERSION") ;; esac
done

download_with_system_apt() {
    apt-get download -q "$@" 2>/dev/null && return
    # a fresh machine may have no package lists yet
    [ "$(id -u)" = 0 ] && apt-get update -q >/dev/null 2>&1 || true
    apt-get download -q "$@"
}
unpack_debs download_with_system_apt "${want[@]}"
