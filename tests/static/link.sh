#!/bin/bash
# SPDX-License-Identifier: MIT
# Stages a build as a packager installs it (tests/install/stage.sh) and
# links the static test programs against that stage with nothing but
# pkg-config, the way an embedded builder would:
#
#     cc -static prog.c $(pkg-config --static --cflags --libs libibverbs)
#
#   usage: tests/static/link.sh BUILDDIR OUTDIR
#
# OUTDIR gets stage/ with stage.env (stage.sh's assignments), the programs
# and link.log (the linker's warnings):
# static-verbs and static-rdmacm (tests/vm/static-*.c) for the vm test,
# collide (tests/static/collide.c) for the host test.  Prints the
# link lines and what `file` says of each program.
set -euo pipefail

die() { printf 'link.sh: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: link.sh BUILDDIR OUTDIR"
build=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

"$src/tests/install/stage.sh" "$build" "$out/stage" > "$out/stage.env"
. "$out/stage.env"
: > "$out/link.log"

# link PROGRAM PKG SOURCE...
link() {
    local prog=$1 pkg=$2; shift 2
    local flags
    flags=$(pkg-config --static --cflags --libs "$pkg") || die "pkg-config --static $pkg failed"
    echo "cc -static -o $prog $* $flags"
    # shellcheck disable=SC2086  # pkg-config's words are meant to split
    ${CC:-cc} -static -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/$prog" -I"$src/tests/vm" "$@" $flags 2>> "$out/link.log" ||
        { cat "$out/link.log" >&2; die "static link of $prog failed"; }
    file "$out/$prog"
}

link static-verbs libibverbs "$src/tests/vm/static-verbs.c" "$src/tests/vm/vmtest.c"
link static-rdmacm librdmacm "$src/tests/vm/static-rdmacm.c" "$src/tests/vm/vmtest.c"
link collide librdmacm "$src/tests/static/collide.c"
