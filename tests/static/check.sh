#!/bin/bash
# SPDX-License-Identifier: MIT
# The static archives on the host (suite 'static'): link the test programs
# as a packager's user would (link.sh), then check that they are static,
# that the built-in providers of this build (-Dproviders) are inside and
# no other, that the archives define nothing but the public names, and
# that an application may reuse our internal names.
#
#   usage: tests/static/check.sh BUILDDIR OUTDIR
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: check.sh BUILDDIR OUTDIR" >&2; exit 2; }
build=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

"$src/tests/static/link.sh" "$build" "$out"
. "$out/stage.env"
echo "linker warnings (glibc's, for the NSS functions libnl and rdma_getaddrinfo use):"
grep -i 'warning' "$out/link.log" | sed 's/^.*warning: /    /' | sort -u || true

for prog in static-verbs static-rdmacm collide; do
    if file "$out/$prog" | grep -q 'statically linked'; then ok "$prog: file says statically linked"
    else bad "$prog: $(file "$out/$prog")"; fi
    if ldd_out=$(ldd "$out/$prog" 2>&1); then bad "$prog: ldd lists libraries: $ldd_out"
    else ok "$prog: ldd: $(echo "$ldd_out" | tr -d '\t')"; fi
done

# The providers compiled in: this build's -Dproviders, each found in the program.
read -r -a built < <(python3 - "$build/meson-info/intro-buildoptions.json" <<'PY'
import json, sys
print(' '.join(next(o['value'] for o in json.load(open(sys.argv[1])) if o['name'] == 'providers')))
PY
)
symbols=$(nm "$out/static-verbs")
for p in rxe siw; do
    if [[ " ${built[*]} " == *" $p "* ]]; then
        grep -q " verbs_provider_$p\$" <<< "$symbols" && ok "provider $p is in static-verbs" ||
            bad "provider $p (built) is missing from static-verbs"
    else
        grep -q " verbs_provider_$p\$" <<< "$symbols" && bad "provider $p is in static-verbs, not built" ||
            ok "provider $p is not built and not in static-verbs"
    fi
done

# Each archive defines, as global, exactly its library's public names.
for lib in libibverbs librdmacm; do
    archive=$STAGE_LIBDIR/$lib.a
    extra=$(nm --defined-only -g "$archive" | awk 'NF == 3 {print $3}' |
        python3 -B -c '
import sys
sys.path.insert(0, sys.argv[1] + "/build-aux")
from symvers import parse
public = {n for _, _, syms in parse(sys.argv[1] + "/ABI.symvers")[sys.argv[2] + ".so.1"] for n, _ in syms}
print(" ".join(sorted(set(sys.stdin.read().split()) - public)))' "$src" "$lib")
    [ -z "$extra" ] && ok "$lib.a: every global name is public ($(nm --defined-only -g "$archive" | grep -c ' [A-Z] ') names)" ||
        bad "$lib.a: internal names left global: $extra"
done
nm -u "$STAGE_LIBDIR/libibverbs.a" | grep -qw dlopen && bad "libibverbs.a calls dlopen()" ||
    ok "libibverbs.a does not load plugins (no dlopen)"

if "$out/collide"; then ok "collide: our internal names do not clash with the application's"
else bad "collide"; fi

[ "$failures" = 0 ] && echo "PASS" || { echo "FAILED: $failures check(s)"; exit 1; }
