#!/bin/bash
# SPDX-License-Identifier: MIT
# In the guest: the statically linked programs that tests/static/link.sh
# built against a staged install, run with nothing but themselves.
#
#   static.sh DIR DEVICE...    DEVICE...: what this build's providers must list
. "$(dirname "$0")/lib.sh"

dir=$1; shift
# No library path, no preload: only what is linked in can drive the devices.
unset LD_LIBRARY_PATH LD_PRELOAD

heading "static programs"
for prog in static-verbs static-rdmacm; do
    file "$dir/$prog"
    file "$dir/$prog" | grep -q 'statically linked' || fail "$prog is not statically linked"
    ldd "$dir/$prog" 2>&1 && fail "ldd lists libraries for $prog"
done

heading "static-verbs: device list and RC exchange (expects: $*)"
"$dir/static-verbs" "$@" || fail "static-verbs"

if [[ " $* " == *" rxe0 "* ]]; then
    heading "static-rdmacm: rdma_cm connection and SEND on rxe0"
    "$dir/static-rdmacm" || fail "static-rdmacm"
fi
echo "PASS: static programs"
