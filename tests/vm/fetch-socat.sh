#!/bin/bash
# Fetch Debian 12's socat and netcat-openbsd (and libwrap0, which socat needs
# and the host lacks) and unpack them privately under DEST (default:
# build/tcp-tools), with an apt configuration of DEST's own (sources list
# naming only `bookworm main`, own lists, cache and empty dpkg status), like
# tests/reference/fetch-trixie.sh.  Nothing is installed.  They are the
# unmodified TCP programs that the preload tests (tests/vm/preload.sh) turn
# into rsocket programs.
#
#   usage: tests/vm/fetch-socat.sh [DEST [STAMP]]
#
# DEST/root    the unpacked packages (usr/bin/socat, usr/bin/nc.openbsd, ...)
# DEST/.done   what was fetched; a second run with the same list is a no-op
set -euo pipefail

# shellcheck source=tests/reference/fetch-lib.sh
. "$(dirname "$0")/../reference/fetch-lib.sh"

PKGS="socat=1.7.4.4-2 libwrap0=7.6.q-32 netcat-openbsd=1.219-1"
fetch_start "${1:-build/tcp-tools}" "${2:-}" "$(echo $PKGS)"
private_apt bookworm
# shellcheck disable=SC2086
unpack_debs apt-get "${apt_opts[@]}" download $PKGS
