#!/bin/bash
# SPDX-License-Identifier: MIT
# Applications that link libmlx5.so.1 and libefa.so.1 directly (issue 10,
# item 3): the libraries' constructors register their ops at process
# start, before any ibv_* call, so the registry must need no runtime
# initialisation (FACTS 4, 10, 12).  LISTER (list-devices.c, linked
# against the reference's libmlx5.so.1 and libefa.so.1) lists a fake
# sysfs tree (fake-sysfs.sh) holding one mlx5 and one efa device with
# RDMAV_DRIVERS/IBV_DRIVERS unset.  Both devices must be claimed by the
# directly linked libraries with nothing dlopen()ed (LD_DEBUG=files logs
# every dlopen), and mlx5dv_is_supported must answer true for mlx5_0 and
# false for efa_0.  Upstream's libibverbs first (the oracle), then ours.
#     direct-link.sh LISTER REFERENCE_ROOT OUR_LIBDIR
set -euo pipefail

. "$(dirname "$0")/fake-sysfs.sh"
fake_sysfs_enter_namespace "$@"

lister=$1 reference=$2 ours=$3
libdir=$reference/usr/lib/x86_64-linux-gnu
work=$FAKE_SYSFS_WORK
fail=0

# plugin  ibdev  node_type  device abi  PCI vendor:device (providers.txt)
fake_sysfs_build "$work/sys" "
mlx5  mlx5_0  1 1 15b3:1011
efa   efa_0   1 1 1d0f:efa0
"
fake_dev_nodes "$work" "$fake_sysfs_count"

expect() {
    local side=$1 pattern=$2 what=$3
    grep -qxF -- "$pattern" "$work/$side.out" ||
        { echo "FAIL: $side: $what (no line '$pattern')"; fail=1; }
}

run_on() {
    local side=$1 search=$2 verbs_dir=$3 mlx5 efa
    echo "== on $side's libibverbs (LD_LIBRARY_PATH=$search)"
    env -u RDMAV_DRIVERS -u IBV_DRIVERS SYSFS_PATH="$work/sys" LD_LIBRARY_PATH="$search" \
        LD_DEBUG=files LD_DEBUG_OUTPUT="$work/$side.ld" "$lister" \
        > "$work/$side.out" 2> "$work/$side.err" ||
        { echo "FAIL: the lister failed on $side's library"; fail=1; }
    cat "$work/$side.out"
    [ ! -s "$work/$side.err" ] || { echo "-- stderr:"; cat "$work/$side.err"; }

    mlx5=$(readlink -f "$libdir/libmlx5.so.1") efa=$(readlink -f "$libdir/libefa.so.1")
    expect "$side" "mapped $(readlink -f "$verbs_dir/libibverbs.so.1")" "which libibverbs"
    expect "$side" "mapped $mlx5" "the reference's libmlx5.so.1"
    expect "$side" "mapped $efa" "the reference's libefa.so.1"
    expect "$side" "2 devices" "both devices listed"
    local dev lib claimed
    for dev in mlx5_0:$mlx5 efa_0:$efa; do
        lib=${dev#*:} dev=${dev%%:*}
        claimed=$(sed -n "s/^device $dev: .* claimed by //p" "$work/$side.out")
        [ -n "$claimed" ] && [ "$(readlink -f "$claimed")" = "$lib" ] ||
            { echo "FAIL: $side: $dev claimed by '${claimed:-nobody}', not $lib"; fail=1; }
    done
    expect "$side" "mlx5dv_is_supported mlx5_0: true" "mlx5dv on the mlx5 device"
    expect "$side" "mlx5dv_is_supported efa_0: false" "mlx5dv on the efa device"

    # glibc's LD_DEBUG=files logs each dlopen() as "dynamically loaded by"
    if cat "$work/$side.ld".* | grep 'dynamically loaded by'; then
        echo "FAIL: $side dlopen()ed the above (no plugin may be loaded)"
        fail=1
    else
        echo "no dlopen() (LD_DEBUG=files: $(cat "$work/$side.ld".* | grep -c 'file=') files mapped)"
    fi
}

run_on upstream "$libdir" "$libdir"
run_on ours "$ours:$libdir" "$ours"
[ $fail = 0 ] || exit 1
echo "ok: mlx5_0 and efa_0 claimed by the directly linked libmlx5/libefa on both libraries, nothing dlopen()ed"
