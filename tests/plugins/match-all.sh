#!/bin/bash
# SPDX-License-Identifier: MIT
# Matching every Debian plugin without hardware (issue 10): a fake sysfs
# tree (SYSFS_PATH) with one device for each of the 17 plugins of Debian's
# ibverbs-providers 44, as providers.txt says each matches (PCI ids in the
# device's modalias, rxe by its name; siw and mana match only by a netlink
# driver id, which the sysfs path never has, so no library may claim
# them).  This host has no RDMA netlink, so both libraries take the sysfs
# path.  Upstream's libibverbs and ours, each loading the same reference
# plugins (RDMAV_DRIVERS path prefixes, FACTS 9), must list the same
# devices (names, node and transport types, GUIDs, paths, the plugin file
# that claimed each) and fail to open them the same way.
# The tree and /dev: fake-sysfs.sh.
#     match-all.sh LISTER REFERENCE_ROOT OUR_LIBDIR [upstream-only]
# upstream-only: the oracle's own listing, with its expectations, alone.
set -euo pipefail

. "$(dirname "$0")/fake-sysfs.sh"
fake_sysfs_enter_namespace "$@"

lister=$1 reference=$2 ours=$3 mode=${4:-both}
plugins=$reference/usr/lib/x86_64-linux-gnu/libibverbs
work=$FAKE_SYSFS_WORK
sys=$work/sys
fail=0

# plugin  ibdev  node_type  device abi  PCI vendor:device ("-": none)
devices="
bnxt_re     bnxt_re0    1 1 14e4:1605
cxgb4       cxgb4_0     4 0 1425:4400
efa         efa_0       1 1 1d0f:efa0
erdma       erdma_0     4 1 1ded:107f
hfi1verbs   hfi1_0      1 0 8086:24f0
hns         hns_0       1 0 19e5:a222
ipathverbs  qib0        1 0 1fc1:000d
irdma       irdma0      4 5 8086:1592
mana        mana_0      1 1 1414:00ba
mlx4        mlx4_0      1 4 15b3:6340
mlx5        mlx5_0      1 1 15b3:1011
mthca       mthca0      1 1 15b3:5a44
ocrdma      ocrdma0     1 2 10df:e220
qedr        qedr0       1 8 1077:1629
rxe         rxe0        1 2 -
siw         siw0        4 1 -
vmw_pvrdma  vmw_pvrdma0 1 3 15ad:0820
"
# names a sysfs-only library cannot match (their tables hold only a driver id)
unmatchable="mana_0 siw0"

drivers=()
while read -r plugin _; do
    [ -n "$plugin" ] || continue
    [ -e "$plugins/lib$plugin-rdmav34.so" ] || { echo "FAIL: no plugin $plugins/lib$plugin-rdmav34.so"; exit 1; }
    drivers+=("$plugins/lib$plugin")
done <<< "$devices"
fake_sysfs_build "$sys" "$devices"
n=$fake_sysfs_count
echo "fake sysfs: $n devices, one a plugin, under $sys"
fake_dev_nodes "$work" "$n"

# Both libraries read /etc/libibverbs.d too; the plugins named here load
# first (FACTS 7) and so register first.
# Ours with every built-in provider off (OPENVERBS_DISABLE_PROVIDERS): its
# rxe and siw would claim rxe0 and siw0 first; upstream ignores it.
list_on() {
    local side=$1 libdir=$2
    echo "== on $side's libibverbs ($libdir)"
    OPENVERBS_DISABLE_PROVIDERS=all SYSFS_PATH=$sys RDMAV_DRIVERS=$(IFS=:; echo "${drivers[*]}") \
        LD_LIBRARY_PATH=$libdir "$lister" > "$work/$side.out" 2> "$work/$side.err" ||
        { echo "FAIL: the lister failed on $side's library"; cat "$work/$side.err"; fail=1; }
    cat "$work/$side.out"
    [ ! -s "$work/$side.err" ] || { echo "-- stderr:"; cat "$work/$side.err"; }
    grep -q "^mapped $(readlink -f "$libdir")/libibverbs.so" "$work/$side.out" ||
        { echo "FAIL: $side's run did not map $libdir/libibverbs.so.1"; fail=1; }
}

# What upstream must show for the test to mean anything: every matchable
# device claimed by its own reference plugin, the others absent.
check_oracle() {
    local plugin ibdev claimed
    while read -r plugin ibdev _ _ _; do
        [ -n "$plugin" ] || continue
        claimed=$(sed -n "s/^device $ibdev: .* claimed by //p" "$work/upstream.out")
        if [[ " $unmatchable " == *" $ibdev "* ]]; then
            [ -z "$claimed" ] || { echo "FAIL: upstream claimed $ibdev ($claimed): expected no match on sysfs"; fail=1; }
        elif [ "$(readlink -f "$claimed")" != "$(readlink -f "$plugins/lib$plugin-rdmav34.so")" ]; then
            echo "FAIL: upstream: $ibdev claimed by '${claimed:-nobody}', not the reference lib$plugin"
            fail=1
        fi
    done <<< "$devices"
}

comparable() {
    { grep -v '^mapped ' "$1"; grep "^mapped $(readlink -f "$plugins")/" "$1"; } | sort
}

list_on upstream "$reference/usr/lib/x86_64-linux-gnu"
check_oracle
if [ "$mode" != upstream-only ]; then
    list_on ours "$ours"
    # Compared: the listing, the opens, and which reference plugins were
    # mapped; not the list's order (readdir and claim order), where each
    # mapped its own libibverbs, nor the plugins each found through the
    # host's /etc/libibverbs.d (their directory is a build option of ours).
    echo "== the two listings (sorted; reference plugins only) must be identical"
    if diff <(comparable "$work/upstream.out") <(comparable "$work/ours.out"); then
        echo "identical"
    else
        echo "FAIL: the libraries differ (< upstream, > ours)"
        fail=1
    fi
fi
[ $fail = 0 ] || exit 1
echo "ok: $((n - 2)) devices matched by their reference plugins, 2 unmatchable without netlink"
