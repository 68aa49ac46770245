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

DEST=${1:-build/tcp-tools}
STAMP=${2:-}
PKGS="socat=1.7.4.4-2 libwrap0=7.6.q-32 netcat-openbsd=1.219-1"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd -P)
WANT="$(echo $PKGS)"
if [ "$(head -n 1 "$DEST/.done" 2>/dev/null)" = "$WANT" ]; then
    [ -z "$STAMP" ] || touch "$STAMP"
    exit 0
fi

apt=$DEST/apt
rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$apt/prefs"
echo "deb [arch=amd64 signed-by=$KEYRING] $MIRROR bookworm main" > "$apt/sources.list"
: > "$apt/status"
opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
      -o "Dir::Etc::Preferences=$apt/prefs/none" -o "Dir::Etc::PreferencesParts=$apt/prefs"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
      -o "Dir::Cache=$apt/cache" -o "APT::Architecture=amd64"
      -o "APT::Architectures=amd64" -o "APT::Sandbox::User=$(id -un)" -q)
apt-get "${opts[@]}" update > "$apt/update.log" 2>&1 ||
    { cat "$apt/update.log" >&2; echo "fetch-socat.sh: apt-get update (private, bookworm) failed" >&2; exit 1; }

dl=$DEST/debs
rm -rf "$dl" "$DEST/root" && mkdir -p "$dl"
# shellcheck disable=SC2086
(cd "$dl" && apt-get "${opts[@]}" download $PKGS > /dev/null) ||
    { echo "fetch-socat.sh: apt-get download failed for: $PKGS" >&2; exit 1; }
for d in "$dl"/*.deb; do dpkg -x "$d" "$DEST/root"; done
{ echo "$WANT"
  for d in "$dl"/*.deb; do dpkg-deb -W "$d"; done; } > "$DEST/.done.tmp"
rm -rf "$dl" "$apt/lists" "$apt/cache"
mv "$DEST/.done.tmp" "$DEST/.done"
[ -z "$STAMP" ] || touch "$STAMP"
