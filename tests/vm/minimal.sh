#!/bin/bash
# SPDX-License-Identifier: MIT
# A variant build (suite 'variants', tests/meson.build) on the real kernel:
#     minimal.sh [--without-netlink] RXE_VERBS SIW_VERBS
# Its libibverbs lists rxe0 and siw0 (from sysfs alone when built without
# RDMA netlink) and its built-in providers move data on both (the C tests
# vm-rxe-verbs and vm-siw-verbs); its librdmacm opens the rdma_cm device
# and connects (upstream's rping, on rxe0 and siw0).  run_on and pair.sh
# prove that every process loaded this build's libraries.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

without_netlink=
[ "${1:-}" = --without-netlink ] && { without_netlink=1; shift; }
[ $# = 2 ] || fail "usage: minimal.sh [--without-netlink] RXE_VERBS SIW_VERBS"

if [ -n "$without_netlink" ]; then
    heading "built without libnl"
    for lib in libverbs/libibverbs.so.1 librdmacm/librdmacm.so.1; do
        needed=$(readelf -d "$vm_build/$lib") || fail "readelf $lib"
        grep -q 'NEEDED.*libnl' <<< "$needed" && fail "$lib needs libnl"
        echo "ok $lib needs no libnl"
    done
fi

heading "device list"
list=$(run_on ours ibv_devices) || fail "ibv_devices on this build (exit $?)"
echo "$list"
for dev in "$RDMAVM_RXE_DEV" "$RDMAVM_SIW_DEV"; do
    grep -qw "$dev" <<< "$list" || fail "ibv_devices does not list $dev"
    echo "ok $dev listed"
done

heading "verbs on rxe0 and siw0"
run_on ours "$1" || fail "$1 (exit $?)"
run_on ours "$2" || fail "$2 (exit $?)"

for ip in "$RDMAVM_RXE_IP" "$RDMAVM_SIW_IP"; do
    heading "rdma_cm at $ip"
    pair "rping $ip" 'ping data: rdma-ping-9' \
        rping -s -a "$ip" -C 10 -v -V -- rping -c -a "$ip" -C 10 -v -V
done
pair_summary
echo "ok the variant build finds both devices and moves data on both"
