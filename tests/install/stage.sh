#!/bin/bash
# SPDX-License-Identifier: MIT
# Install an already built build directory into a staging directory, the way a
# packager's `meson install --destdir` does, and print what a consumer needs to
# build against it with nothing but pkg-config.
#
#   usage: tests/install/stage.sh BUILDDIR STAGEDIR
#          eval "$(tests/install/stage.sh build /tmp/stage)"
#
# STAGEDIR is emptied first.  Nothing is rebuilt (the caller has built; inside
# `meson test` a rebuild would race the build itself).  Output, one shell
# assignment a line, safe for eval:
#   STAGE_ROOT               STAGEDIR, absolute
#   STAGE_PREFIX             STAGE_ROOT + the build's prefix
#   STAGE_LIBDIR             where the libraries and pkgconfig/ landed
#   STAGE_INCLUDEDIR         where infiniband/ and rdma/ landed
#   PKG_CONFIG_SYSROOT_DIR   STAGE_ROOT: pkg-config prefixes it to -I and -L
#   PKG_CONFIG_LIBDIR        the staged pkgconfig directory first, then
#                            STAGE_HOST_PC_PATH (default: the host's own
#                            search path, for libnl's .pc files; set it empty
#                            for a cross or musl stage that must not see them)
# The assignments are exported when eval'ed.
set -euo pipefail

die() { printf 'stage.sh: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: stage.sh BUILDDIR STAGEDIR"
build=$1 stage=$2
[ -f "$build/meson-info/intro-buildoptions.json" ] || die "$build is not a configured Meson build directory"

rm -rf "$stage" && mkdir -p "$stage"
stage=$(cd "$stage" && pwd -P)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet > "$log" 2>&1 ||
    { cat "$log" >&2; die "meson install into $stage failed"; }

# prefix, libdir and includedir as this build was configured
read -r prefix libdir includedir < <(python3 - "$build/meson-info/intro-buildoptions.json" <<'PY'
import json, sys
opts = {o['name']: o['value'] for o in json.load(open(sys.argv[1]))}
def under_prefix(d):
    return d if d.startswith('/') else opts['prefix'] + '/' + d
print(opts['prefix'], under_prefix(opts['libdir']), under_prefix(opts['includedir']))
PY
)

host_pc_path=${STAGE_HOST_PC_PATH-$(pkg-config --variable pc_path pkg-config)}
pc_libdir=$stage$libdir/pkgconfig${host_pc_path:+:$host_pc_path}

emit() { printf 'export %s=%q\n' "$1" "$2"; }
emit STAGE_ROOT "$stage"
emit STAGE_PREFIX "$stage$prefix"
emit STAGE_LIBDIR "$stage$libdir"
emit STAGE_INCLUDEDIR "$stage$includedir"
emit PKG_CONFIG_SYSROOT_DIR "$stage"
emit PKG_CONFIG_LIBDIR "$pc_libdir"
