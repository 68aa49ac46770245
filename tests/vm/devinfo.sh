#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's ibv_devices and ibv_devinfo print the same on our libibverbs
# as on upstream's, for rxe0, siw0 and for all devices, byte for byte.
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d /tmp/devinfo.XXXXXX)
failed=0
dev=$RDMAVM_RXE_DEV
# name and command line of each comparison
cases=(
    "devices ibv_devices"
    "devinfo ibv_devinfo"
    "devinfo-v ibv_devinfo -v"
    "devinfo-rxe0 ibv_devinfo -d $dev"
    "devinfo-v-rxe0 ibv_devinfo -v -d $dev"
    "devinfo-v-siw0 ibv_devinfo -v -d $RDMAVM_SIW_DEV"
    "devinfo-list ibv_devinfo -l"
    "devinfo-nosuch ibv_devinfo -d nosuch0"
    "devinfo-port9 ibv_devinfo -d $dev -i 9"
)

# Runs every case on SIDE's libraries: output in NAME.SIDE, exit status
# in NAME.SIDE.rc.  The loader's log of all of them proves the side (one
# check: each costs seconds under TCG).
run_side() {
    local side=$1 c name cmd
    mkdir -p "$out/ld.$side"
    (
        use_libs "$side" || exit
        for c in "${cases[@]}"; do
            read -r name cmd <<< "$c"
            # shellcheck disable=SC2086  # the command line splits on blanks
            traced_run "$out/ld.$side" $cmd > "$out/$name.$side" 2>&1
            echo $? > "$out/$name.$side.rc"
        done
    )
    heading "the programs on the $side side loaded"
    # upstream's provider list is long and the same every time
    check_loaded "$side" "$out/ld.$side" | grep -v '^  provider: '
    [ "${PIPESTATUS[0]}" = 0 ] || fail "not (only) the $side libraries were loaded"
}

# Few processes per case: each costs ~0.1 s under TCG, more under load.
compare() {
    local name=$1 cmd=$2 ours ref lines
    read -r ours < "$out/$name.ours.rc"
    read -r ref < "$out/$name.reference.rc"
    mapfile -t lines < "$out/$name.ours"
    heading "$name: $cmd"
    if [ "$ours" != "$ref" ]; then
        failed=1; echo "FAIL $name: exit $ours on ours, $ref on upstream's"
    fi
    if diff -u --label upstream --label ours "$out/$name.reference" "$out/$name.ours"; then
        echo "ok $name: identical (${#lines[@]} lines, exit $ours)"
    else
        failed=1; echo "FAIL $name: output differs"
    fi
}

run_side reference
run_side ours
for c in "${cases[@]}"; do
    read -r name cmd <<< "$c"
    compare "$name" "$cmd"
done

# The comparisons must have seen real content, not two empty outputs.
grep -q "hca_id:[[:space:]]*$dev\$" "$out/devinfo-v-rxe0.ours" ||
    fail "ibv_devinfo -v -d $dev printed no $dev block"
grep -q 'GID\[ *[0-9]*\]:[[:space:]]*::ffff:192.0.2.1, RoCE v2' "$out/devinfo-v-rxe0.ours" ||
    fail "ibv_devinfo -v -d $dev printed no RoCE v2 GID for $RDMAVM_RXE_IP"
grep -q "hca_id:[[:space:]]*$RDMAVM_SIW_DEV\$" "$out/devinfo.ours" ||
    fail "ibv_devinfo printed no $RDMAVM_SIW_DEV block"
grep -q 'transport:[[:space:]]*iWARP' "$out/devinfo-v-siw0.ours" ||
    fail "ibv_devinfo -v -d $RDMAVM_SIW_DEV printed no iWARP transport"
[ $failed = 0 ] || fail "ibv_devices/ibv_devinfo differ between our library and upstream's"
echo "ok all identical"
