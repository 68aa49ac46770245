#!/bin/bash
# SPDX-License-Identifier: MIT
# A variant build (suite 'variants', tests/meson.build) on the real kernel:
#     minimal.sh [--without-netlink]
# Its libibverbs lists rxe0 and siw0 (from sysfs alone when built without
# RDMA netlink) and its built-in providers move data: upstream's
# ibv_rc_pingpong on rxe0 (libibverbs alone), rping on rxe0 and siw0
# (librdmacm opening rdma_cm and finding the device through libibverbs).
# run_on and pair.sh prove that every process loaded this build's
# libraries.  Few iterations: the point is which code finds the devices.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

without_netlink=
[ "${1:-}" = --without-netlink ] && { without_netlink=1; shift; }
[ $# = 0 ] || fail "usage: minimal.sh [--without-netlink]"

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

heading "data"
dev=(-d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -n 20)
pair "ibv_rc_pingpong on $RDMAVM_RXE_DEV" '[0-9]+ bytes in [0-9.]+ seconds' \
    ibv_rc_pingpong "${dev[@]}" -- ibv_rc_pingpong "${dev[@]}" 127.0.0.1
for ip in "$RDMAVM_RXE_IP" "$RDMAVM_SIW_IP"; do
    PAIR_WAIT=cm pair "rping at $ip" 'ping data: rdma-ping-4' \
        rping -s -a "$ip" -C 5 -v -V -- rping -c -a "$ip" -C 5 -v -V
done
pair_summary
