#!/bin/bash
# Fetch Debian 13 ("trixie") rdma-core 56.1 packages and unpack them
# privately under DEST (default: build/reference56), with an apt
# configuration of DEST's own: its own sources list naming only
# `trixie main`, its own package lists, cache and (empty) dpkg status
# (V56-ADDITIONS 6).  The system's apt sources, lists and cache are
# neither read nor written, and nothing is installed.  The v56 plugins are
# test oracles: one core must drive the providers of two releases.
#
#   usage: tests/reference/fetch-trixie.sh [DEST [STAMP]]
#
# STAMP, when given, is touched on success (Meson's custom_target output).
# DEST/root    the unpacked packages (usr/lib/x86_64-linux-gnu/libibverbs, usr/bin, ...)
# DEST/apt     the private apt configuration and state
# DEST/.done   what was fetched; a second run with the same list is a no-op
set -euo pipefail

# shellcheck source=tests/reference/fetch-lib.sh
. "$(dirname "$0")/fetch-lib.sh"

PKGS="libibverbs1 ibverbs-providers ibverbs-utils"
VERSION=56.1-1
fetch_start "${1:-build/reference56}" "${2:-}" "$(echo $PKGS) $VERSION"
private_apt trixie
want=()
for p in $PKGS; do want+=("$p=$VERSION"); done
unpack_debs apt-get "${apt_opts[@]}" download "${want[@]}"
