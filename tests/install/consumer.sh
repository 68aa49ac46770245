#!/bin/bash
# SPDX-License-Identifier: MIT
# Build a consumer of libibverbs and librdmacm with nothing but pkg-config
# pointing at a staged install, run it on the staged libraries, and prove
# that the headers it compiled against and the libraries it loaded are the
# staged ones: the host has Debian's libibverbs1 and librdmacm1, which a
# wrong search path would silently pick up.
#
# NETLINK says whether the build links libnl (-Dnetlink): the .pc files must
# then require libnl-3.0 for static links, and must not otherwise; without
# it pkg-config sees only the stage, so a stray libnl requirement fails.
#
#   usage: tests/install/consumer.sh BUILDDIR WORKDIR enabled|disabled
#          (CC: the compiler)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: consumer.sh BUILDDIR WORKDIR enabled|disabled" >&2; exit 2; }
[ $# -eq 3 ] || usage
build=$1 work=$2 netlink=$3
fail() { echo "FAIL $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
case $netlink in
    enabled) eval "$("$here/stage.sh" "$build" "$work/stage")" ;;
    disabled) eval "$(STAGE_HOST_PC_PATH='' "$here/stage.sh" "$build" "$work/stage")" ;;
    *) usage ;;
esac

pkgs=(libibverbs librdmacm)
for pkg in "${pkgs[@]}"; do
    errors=$(pkg-config --print-errors --static --exists "$pkg" 2>&1) ||
        fail "pkg-config cannot resolve $pkg from the stage: $errors"
    requires=$(pkg-config --print-requires-private "$pkg")
    requires=$(tr '\n' ' ' <<< "$requires")
    echo "$pkg Requires.private: $requires"
    case $netlink:" $requires" in
        enabled:*" libnl-3.0 "*|disabled:*) ;;
        *) fail "$pkg.pc does not require libnl-3.0, which this build links" ;;
    esac
    case $netlink:" $requires" in
        disabled:*libnl*) fail "$pkg.pc requires libnl, which this build does not link" ;;
    esac
done
cflags=$(pkg-config --cflags "${pkgs[@]}")
libs=$(pkg-config --libs "${pkgs[@]}")
echo "pkg-config --cflags: $cflags"
echo "pkg-config --libs: $libs"
echo "pkg-config --static --libs: $(pkg-config --static --libs "${pkgs[@]}")"

# -H lists every header the compiler opened, one ". PATH" line each.
# shellcheck disable=SC2086 # pkg-config's output is a list of words
${CC:-cc} -std=c11 -Wall -Wextra -Werror -H $cflags "$here/consumer.c" \
    -o "$work/consumer" $libs 2> "$work/compile.log" ||
    { cat "$work/compile.log"; fail "the consumer does not build from pkg-config's flags"; }

staged_includes=$(realpath "$STAGE_INCLUDEDIR")
checked=0
while read -r header; do
    relative=$(basename "$(dirname "$header")")/$(basename "$header")
    # a header we install must have come from the stage; kernel UAPI
    # headers (rdma/ib_user_verbs.h, ...) are the system's, as upstream's are
    [ -e "$STAGE_INCLUDEDIR/$relative" ] || continue
    [ "$(realpath "$header")" = "$staged_includes/$relative" ] ||
        fail "$relative came from $header, not from the stage"
    echo "header $relative: $header"
    checked=$((checked + 1))
done < <(sed -n 's/^\.\+ \(.*\/\(infiniband\|rdma\)\/[^/]*\.h\)$/\1/p' "$work/compile.log")
[ "$checked" -ge 3 ] || fail "only $checked staged headers seen in -H output (want verbs.h, rdma_cma.h, rsocket.h at least)"

needed=$(readelf -d -W "$work/consumer" |
    sed -n 's/.*(NEEDED).*\[\(lib\(ibverbs\|rdmacm\)[^]]*\)\]/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "libibverbs.so.1 librdmacm.so.1 " ] || fail "consumer needs '$needed', want upstream's sonames"
echo "needed: $needed"

output=$(LD_LIBRARY_PATH=$STAGE_LIBDIR "$work/consumer") || fail "the consumer failed: $output"
echo "$output"
staged_libs=$(realpath "$STAGE_LIBDIR")
for soname in libibverbs.so.1 librdmacm.so.1; do
    loaded=$(sed -n "s/^loaded \(.*\/$soname\)\$/\1/p" <<< "$output")
    [ -n "$loaded" ] || fail "$soname was not loaded"
    [ "$(dirname "$(realpath "$loaded")")" = "$staged_libs" ] || fail "$soname loaded from $loaded, not from the stage"
done
echo "ok: staged headers and staged libraries, found through pkg-config alone"
