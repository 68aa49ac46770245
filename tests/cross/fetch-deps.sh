#!/bin/bash
# The foreign builds' dependencies, from Debian 12, privately under DEST:
# nothing is installed and no architecture is added to the system's dpkg.
#
#   usage: tests/cross/fetch-deps.sh KIND DEST
#
#   arm64, i386       check and libnl (headers, .pc files, libraries) of that
#                     architecture, unpacked from its .debs into DEST/root; the
#                     cross files point pkg-config there (sys_root)
#   i386-reference    rdma-core 44.0-2's i386 -dev packages: the headers the
#                     i686 layout run compares ours with
#   musl              libcheck built with musl-gcc from Debian's source package
#                     (Debian ships no musl libcheck), installed into DEST/root
#
# DEST/.done records what was fetched; a second run is a no-op.
set -euo pipefail

# shellcheck source=tests/reference/fetch-lib.sh
. "$(dirname "$0")/../reference/fetch-lib.sh"

KIND=${1:?usage: fetch-deps.sh KIND DEST}
DEST_ARG=${2:?usage: fetch-deps.sh KIND DEST}
# the unit tests' check (libsubunit: check.pc requires it) and libnl
LIBS="check libsubunit-dev libsubunit0 libnl-3-dev libnl-3-200 libnl-route-3-dev libnl-route-3-200"
REFERENCE="libibverbs-dev=44.0-2 librdmacm-dev=44.0-2"

case $KIND in
    arm64|i386)
        fetch_start "$DEST_ARG" "" "$KIND: $LIBS"
        private_apt bookworm "$KIND"
        # shellcheck disable=SC2086
        unpack_debs apt-get "${apt_opts[@]}" download $LIBS ;;
    i386-reference)
        fetch_start "$DEST_ARG" "" "$KIND: $REFERENCE"
        private_apt bookworm i386
        # shellcheck disable=SC2086
        unpack_debs apt-get "${apt_opts[@]}" download $REFERENCE ;;
    musl)
        fetch_start "$DEST_ARG" "" "musl: check source, musl-gcc"
        private_apt bookworm amd64 deb-src
        src=$DEST/src
        rm -rf "$src" "$DEST/root" && mkdir -p "$src"
        (cd "$src" && apt-get "${apt_opts[@]}" source --download-only check > download.log 2>&1) ||
            { cat "$src/download.log" >&2; echo "$fetcher: check source download failed" >&2; exit 1; }
        # the upstream release tarball, configure script included; Debian's
        # patches only touch its packaging and documentation
        tar -xf "$src"/check_*.orig.tar.* -C "$src"
        (cd "$src"/check-*/ &&
         ./configure CC=musl-gcc CFLAGS=-O2 --prefix=/usr --libdir=/usr/lib \
             --disable-shared --enable-static --disable-subunit --disable-timeout-tests \
             --disable-build-docs > "$src/configure.log" 2>&1 &&
         make -j2 -C lib > "$src/make.log" 2>&1 && make -j2 -C src >> "$src/make.log" 2>&1 &&
         make -C lib install DESTDIR="$DEST/root" > /dev/null 2>&1 &&
         make -C src install DESTDIR="$DEST/root" > /dev/null &&
         rm -f "$DEST/root/usr/lib/libcheck.la" &&
         install -D -m 644 check.pc "$DEST/root/usr/lib/pkgconfig/check.pc" &&
         install -D -m 644 check_stdint.h "$DEST/root/usr/include/check_stdint.h") ||
            { tail -n 30 "$src"/*.log >&2; echo "$fetcher: building check with musl-gcc failed" >&2; exit 1; }
        { echo "$WANT"; basename "$src"/check_*.dsc; } > "$DEST/.done.tmp"
        rm -rf "$src" "$DEST/apt/lists" "$DEST/apt/cache"
        mv "$DEST/.done.tmp" "$DEST/.done" ;;
    *)
        echo "$fetcher: unknown kind $KIND" >&2; exit 2 ;;
esac
