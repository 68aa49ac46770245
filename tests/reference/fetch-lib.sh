# shellcheck shell=bash
# Sourced by the fetchers (tests/reference/fetch.sh, fetch-trixie.sh,
# tests/vm/fetch-socat.sh), after `set -euo pipefail`: Debian packages are
# downloaded and unpacked privately under DEST/root, never installed.
#
#   fetch_start DEST STAMP WANT  makes DEST absolute; exits 0 (touching STAMP)
#                                when DEST/.done already records WANT
#   private_apt SUITE [ARCH [deb-src]]
#                                apt_opts: an apt of DEST/apt's own (sources
#                                list naming only `SUITE main` for ARCH,
#                                default amd64, and its sources when asked;
#                                own lists, cache and empty dpkg status), updated
#   unpack_debs CMD...           runs the download command CMD in an empty
#                                directory, unpacks every .deb it left into
#                                DEST/root, keeps each package's file list in
#                                DEST/lists/PACKAGE.list, records WANT and the
#                                versions in DEST/.done and touches STAMP
#
# A file list has one installed non-directory a line, as an absolute path;
# a symbolic link is `PATH -> TARGET`.  tests/install compares ours with them.

fetcher=${0##*/}

fetch_start() {
    mkdir -p "$1"
    DEST=$(cd "$1" && pwd -P)
    STAMP=$2
    WANT=$3
    if [ "$(head -n 1 "$DEST/.done" 2>/dev/null)" = "$WANT" ]; then
        [ -z "$STAMP" ] || touch "$STAMP"
        exit 0
    fi
}

private_apt() {
    local suite=$1 arch=${2:-amd64} src=${3:-} apt=$DEST/apt
    local mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$apt/prefs"
    echo "deb [arch=$arch signed-by=$keyring] $mirror $suite main" > "$apt/sources.list"
    [ -z "$src" ] || echo "deb-src [signed-by=$keyring] $mirror $suite main" >> "$apt/sources.list"
    : > "$apt/status"
    # Every directory apt would otherwise take from /etc or /var names ours.
    apt_opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
              -o "Dir::Etc::Preferences=$apt/prefs/none" -o "Dir::Etc::PreferencesParts=$apt/prefs"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
              -o "Dir::Cache=$apt/cache" -o "APT::Architecture=$arch"
              -o "APT::Architectures=$arch" -o "APT::Sandbox::User=$(id -un)" -q)
    apt-get "${apt_opts[@]}" update > "$apt/update.log" 2>&1 ||
        { cat "$apt/update.log" >&2; echo "$fetcher: apt-get update (private, $suite) failed" >&2; exit 1; }
}

unpack_debs() {
    local dl=$DEST/debs d
    rm -rf "$dl" "$DEST/root" "$DEST/lists" && mkdir -p "$dl" "$DEST/lists"
    (cd "$dl" && "$@" > /dev/null) ||
        { echo "$fetcher: download failed: $*" >&2; exit 1; }
    for d in "$dl"/*.deb; do
        dpkg -x "$d" "$DEST/root"
        dpkg-deb -c "$d" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 ($7 == "->" ? " -> " $8 : "") }' \
            > "$DEST/lists/$(dpkg-deb -f "$d" Package).list"
    done
    { echo "$WANT"
      for d in "$dl"/*.deb; do dpkg-deb -W "$d"; done; } > "$DEST/.done.tmp"
    rm -rf "$dl" "$DEST/apt/lists" "$DEST/apt/cache"
    mv "$DEST/.done.tmp" "$DEST/.done"
    [ -z "$STAMP" ] || touch "$STAMP"
}
