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

DEST=${1:-build/reference56}
STAMP=${2:-}
PKGS="libibverbs1 ibverbs-providers ibverbs-utils"
VERSION=56.1-1
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd -P)
WANT="$(echo $PKGS) $VERSION"
if [ "$(head -n 1 "$DEST/.done" 2>/dev/null)" = "$WANT" ]; then
    [ -z "$STAMP" ] || touch "$STAMP"
    exit 0
fi

apt=$DEST/apt
rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$apt/prefs"
echo "deb [arch=amd64 signed-by=$KEYRING] $MIRROR trixie main" > "$apt/sources.list"
: > "$apt/status"
# Every directory apt would otherwise take from /etc or /var names ours.
opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
      -o "Dir::Etc::Preferences=$apt/prefs/none" -o "Dir::Etc::PreferencesParts=$apt/prefs"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
      -o "Dir::Cache=$apt/cache" -o "APT::Architecture=amd64"
      -o "APT::Architectures=amd64" -o "APT::Sandbox::User=$(id -un)" -q)
apt-get "${opts[@]}" update > "$apt/update.log" 2>&1 ||
    { cat "$apt/update.log" >&2; echo "fetch-trixie.sh: apt-get update (private, trixie) failed" >&2; exit 1; }

want=()
for p in $PKGS; do want+=("$p=$VERSION"); done
dl=$DEST/debs
rm -rf "$dl" "$DEST/root" && mkdir -p "$dl"
(cd "$dl" && apt-get "${opts[@]}" download "${want[@]}" > /dev/null) ||
    { echo "fetch-trixie.sh: apt-get download failed for: ${want[*]}" >&2; exit 1; }
for d in "$dl"/*.deb; do dpkg -x "$d" "$DEST/root"; done
{ echo "$WANT"
  for d in "$dl"/*.deb; do dpkg-deb -W "$d"; done; } > "$DEST/.done.tmp"
rm -rf "$dl" "$apt/lists" "$apt/cache"
mv "$DEST/.done.tmp" "$DEST/.done"
[ -z "$STAMP" ] || touch "$STAMP"
