#!/bin/bash
# SPDX-License-Identifier: MIT
# The upstream-oracle helpers of lib.sh work, and tell libraries apart.
# Few processes: each costs ~0.1 s under TCG.
. "$(dirname "$0")/lib.sh"

heading "upstream ibv_devinfo on upstream libibverbs"
out=$(run_on reference ibv_devinfo 2>&1) || fail "run_on reference ibv_devinfo: $out"
echo "$out"
for dev in rxe0 siw0; do
    [[ $out =~ hca_id:[[:space:]]*$dev$'\n' ]] || fail "ibv_devinfo does not show $dev"
done
# upstream's providers come from the system, which must be upstream's release
sysdir=/usr/lib/x86_64-linux-gnu/libibverbs
for p in librxe-rdmav34.so libsiw-rdmav34.so; do
    [[ $out == *"provider: $sysdir/$p"* ]] || fail "$p not loaded from $sysdir"
    cmp "$sysdir/$p" "$vm_reference$sysdir/$p" || fail "$sysdir/$p is not the reference package's"
    echo "ok $p from $sysdir, identical to the reference package's"
done

heading "a program without LD_LIBRARY_PATH gets the system libibverbs"
dir=$(mktemp -d)
( unset LD_LIBRARY_PATH; traced_run "$dir" "$vm_reference/usr/bin/ibv_devinfo" -h ) > /dev/null 2>&1
libs=$(loaded_libs "$dir")
echo "$libs"
[[ $libs == "libibverbs.so.1 /usr/lib/x86_64-linux-gnu/libibverbs.so.1."* ]] ||
    fail "expected the system libibverbs"
! check_loaded reference "$dir" || fail "check_loaded reference accepted the system libibverbs"
! check_loaded ours "$dir" || fail "check_loaded ours accepted the system libibverbs"
echo "ok neither side accepts it"

heading "libibverbs_of a running rping server"
( use_libs reference && exec rping -s -a "$RDMAVM_RXE_IP" ) > /dev/null 2>&1 &
pid=$!
for _ in {1..100}; do lib=$(libibverbs_of $pid) && break; sleep 0.1; done
kill $pid; wait $pid 2> /dev/null
echo "rping server $pid: $lib"
[ "${lib%/*}" = "$(readlink -f "$vm_reference/usr/lib/x86_64-linux-gnu")" ] || fail "rping -s mapped '$lib'"
echo "ok"
