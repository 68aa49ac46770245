#!/bin/bash
# SPDX-License-Identifier: MIT
# A variant build (suite 'variants', tests/meson.build) on the real kernel:
#     minimal.sh [--without-netlink] [--without-plugins] PROVIDER...
# PROVIDERs are the built-in ones (-Dproviders).  Its libibverbs lists
# the devices they drive (from sysfs alone when built without RDMA
# netlink), and no other when it cannot load plugins, and moves data on
# each: upstream's ibv_rc_pingpong on rxe0
# (libibverbs alone), rping (librdmacm opening rdma_cm and finding the
# device through libibverbs).  run_on and pair.sh prove that every
# process loaded this build's libraries.  Few iterations: the point is
# which code finds the devices.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

without_netlink=
[ "${1:-}" = --without-netlink ] && { without_netlink=1; shift; }
without_plugins=
[ "${1:-}" = --without-plugins ] && { without_plugins=1; shift; }
[ $# -gt 0 ] || fail "usage: minimal.sh [--without-netlink] [--without-plugins] PROVIDER..."
built_in=" $* "

if [ -n "$without_netlink" ]; then
    heading "built without libnl"
    for lib in libverbs/libibverbs.so.1 librdmacm/librdmacm.so.1; do
        needed=$(readelf -d "$vm_build/$lib") || fail "readelf $lib"
        grep -q 'NEEDED.*libnl' <<< "$needed" && fail "$lib needs libnl"
        echo "ok $lib needs no libnl"
    done
fi

heading "device list (built-in providers: $*)"
list=$(run_on ours ibv_devices) || fail "ibv_devices on this build (exit $?)"
echo "$list"
for dev in "$RDMAVM_RXE_DEV" "$RDMAVM_SIW_DEV"; do
    if [[ $built_in == *" ${dev%%[0-9]*} "* ]]; then
        grep -qw "$dev" <<< "$list" || fail "ibv_devices does not list $dev"
        echo "ok $dev listed"
    elif [ -n "$without_plugins" ]; then
        grep -qw "$dev" <<< "$list" && fail "ibv_devices lists $dev, whose provider is not built in"
        echo "ok $dev not listed: no provider for it"
    else
        echo "($dev: not built in; the guest's plugin may drive it)"
    fi
done

heading "data"
if [[ $built_in == *" rxe "* ]]; then
    dev=(-d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -n 20)
    pair "ibv_rc_pingpong on $RDMAVM_RXE_DEV" '[0-9]+ bytes in [0-9.]+ seconds' \
        ibv_rc_pingpong "${dev[@]}" -- ibv_rc_pingpong "${dev[@]}" 127.0.0.1
    PAIR_WAIT=cm pair "rping on $RDMAVM_RXE_DEV" 'ping data: rdma-ping-4' \
        rping -s -a "$RDMAVM_RXE_IP" -C 5 -v -V -- rping -c -a "$RDMAVM_RXE_IP" -C 5 -v -V
fi
if [[ $built_in == *" siw "* ]]; then
    PAIR_WAIT=cm pair "rping on $RDMAVM_SIW_DEV" 'ping data: rdma-ping-4' \
        rping -s -a "$RDMAVM_SIW_IP" -C 5 -v -V -- rping -c -a "$RDMAVM_SIW_IP" -C 5 -v -V
fi
pair_summary
