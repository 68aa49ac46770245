#!/bin/bash
# SPDX-License-Identifier: MIT
# ibv_devices, ibv_devinfo and ibv_asyncwatch, three ways, for rxe0, siw0
# and all devices:
#   reference  upstream's tools on upstream's libibverbs: the oracle;
#   library    upstream's tools on our libibverbs: byte for byte the same;
#   tools      our tools (tools/verbs) on our libibverbs: the same output
#              and exit status, but for a usage text of our own on bad
#              arguments (ours documents --json and --help).
# Then what only ours has: --help, --json checked against its schema and
# the text output; and both ibv_asyncwatch watching the same link flaps.
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d /tmp/devinfo.XXXXXX)
failed=0
dev=$RDMAVM_RXE_DEV
siw=$RDMAVM_SIW_DEV
ours_tools=$vm_build/tools
# kind, name and command line of each comparison; kind "same": stdout,
# stderr and exit status identical; "usage": a bad argument, where the
# exit status and stderr (getopt's message) are identical and both print
# a usage text.  The library run leaves the usage cases out (the same
# program parses the same arguments).
cases=(
    "same devices ibv_devices"
    "same devinfo ibv_devinfo"
    "same devinfo-v ibv_devinfo -v"
    "same devinfo-rxe0 ibv_devinfo -d $dev"
    "same devinfo-long ibv_devinfo --ib-dev=$dev --ib-port=1 --verbose stray"
    "same devinfo-list ibv_devinfo -l"
    "same devinfo-nosuch ibv_devinfo -d nosuch0"
    "same devinfo-port9 ibv_devinfo -d $dev -i 9"
    "same devinfo-port9-all ibv_devinfo -i 9"
    "same asyncwatch-nosuch ibv_asyncwatch -d nosuch0"
    "usage devinfo-badopt ibv_devinfo -x"
    "usage devinfo-noarg ibv_devinfo -d"
    "usage devinfo-port0 ibv_devinfo -i 0"
    "usage asyncwatch-badopt ibv_asyncwatch -x"
)

# Runs the cases on a library SIDE with TOOLS' programs: NAME.RUN.out,
# .err and .rc.  The loader's log of all of them proves the side (one
# check: each costs seconds under TCG), `type -P` the programs.
run_side() {
    local run=$1 side=$2 tools=$3 c kind name cmd prog
    mkdir -p "$out/ld.$run"
    (
        VM_TOOLS=$tools use_libs "$side" || exit
        for prog in ibv_devices ibv_devinfo ibv_asyncwatch; do
            echo "$run: $prog is $(type -P $prog)"
        done > "$out/programs.$run"
        for c in "${cases[@]}"; do
            read -r kind name cmd <<< "$c"
            [ "$run" = library ] && [ "$kind" = usage ] && continue
            # shellcheck disable=SC2086  # the command line splits on blanks
            traced_run "$out/ld.$run" $cmd > "$out/$name.$run.out" 2> "$out/$name.$run.err"
            echo $? > "$out/$name.$run.rc"
        done
    )
    heading "$run: $tools tools on the $side libraries"
    cat "$out/programs.$run"
    grep -qv " is $(tools_dir_of "$tools")/" "$out/programs.$run" &&
        fail "$run: not $tools's programs ran"
    # upstream's provider list is long and the same every time
    check_loaded "$side" "$out/ld.$run" | grep -v '^  provider: '
    [ "${PIPESTATUS[0]}" = 0 ] || fail "not (only) the $side libraries were loaded"
}

# Few processes per case: each costs ~0.1 s under TCG, more under load.
compare() {
    local run=$1 kind=$2 name=$3 cmd=$4 ours ref lines
    [ -e "$out/$name.$run.rc" ] || return 0
    read -r ours < "$out/$name.$run.rc"
    read -r ref < "$out/$name.reference.rc"
    mapfile -t lines < "$out/$name.$run.out"
    heading "$run $name: $cmd"
    if [ "$ours" != "$ref" ]; then
        failed=1; echo "FAIL $name: exit $ours on $run, $ref on upstream's"
    fi
    if ! diff -u --label "upstream stderr" --label "$run stderr" \
            "$out/$name.reference.err" "$out/$name.$run.err"; then
        failed=1; echo "FAIL $name: stderr differs"
    elif [ "$kind" = usage ]; then
        if grep -q '^Usage:' "$out/$name.reference.out" && grep -q '^Usage:' "$out/$name.$run.out"; then
            echo "ok $name: exit $ours, the same error and a usage text"
        else
            failed=1; echo "FAIL $name: no usage text"; cat "$out/$name.$run.out"
        fi
    elif diff -u --label upstream --label "$run" "$out/$name.reference.out" "$out/$name.$run.out"; then
        echo "ok $name: identical (${#lines[@]} lines, exit $ours)"
    else
        failed=1; echo "FAIL $name: output differs"
    fi
}

# Plugin mode (plugins.sh) judges our core under upstream's providers
# with upstream's tools alone; our tools are judged here, on our own.
runs=(library)
[ -n "${VM_PLUGINS:-}" ] || runs+=(tools)
run_side reference reference upstream
run_side library ours upstream
[ -n "${VM_PLUGINS:-}" ] || run_side tools ours ours
for run in "${runs[@]}"; do
    for c in "${cases[@]}"; do
        read -r kind name cmd <<< "$c"
        compare "$run" "$kind" "$name" "$cmd"
    done
done

# The comparisons must have seen real content, not two empty outputs.
for run in "${runs[@]}"; do
    grep -q "hca_id:[[:space:]]*$dev\$" "$out/devinfo-rxe0.$run.out" ||
        fail "$run: ibv_devinfo -d $dev printed no $dev block"
    grep -q 'GID\[ *[0-9]*\]:[[:space:]]*::ffff:192.0.2.1, RoCE v2' "$out/devinfo-v.$run.out" ||
        fail "$run: ibv_devinfo -v printed no RoCE v2 GID for $RDMAVM_RXE_IP"
    grep -q "hca_id:[[:space:]]*$siw\$" "$out/devinfo.$run.out" ||
        fail "$run: ibv_devinfo printed no $siw block"
    grep -q 'transport:[[:space:]]*iWARP' "$out/devinfo-v.$run.out" ||
        fail "$run: ibv_devinfo -v printed no iWARP transport"
done
[ $failed = 0 ] || fail "ibv_devices/ibv_devinfo differ from upstream's"
echo "ok all identical"
if [ -n "${VM_PLUGINS:-}" ]; then
    echo "plugin mode: our tools' own checks (--json, ibv_asyncwatch) run in the devinfo test"
    exit 0
fi

# Ours only: --help, and --json against its schema and the text of the
# tools run.  Absolute paths: our programs, on our libraries.
heading "our --help and --json"
(
    use_libs ours || exit
    for prog in ibv_devinfo ibv_devices ibv_asyncwatch; do
        "$ours_tools/$prog" --help > "$out/$prog.help" || fail "$prog --help: exit $?"
        grep -q '^Usage: ' "$out/$prog.help" || fail "$prog --help printed no usage"
        echo "ok $prog --help: exit 0, $(wc -l < "$out/$prog.help") lines"
    done
    grep -q -- '--json' "$out/ibv_devinfo.help" || fail "ibv_devinfo --help does not mention --json"
    "$ours_tools/ibv_devinfo" --json > "$out/devinfo.json" || fail "ibv_devinfo --json: exit $?"
    "$ours_tools/ibv_devices" --json > "$out/devices.json" || fail "ibv_devices --json: exit $?"
    python3 "$vm_source/tests/vm/devinfo-json.py" "$vm_source/tools/verbs" \
        "$out/devinfo.json" "$out/devinfo-v.tools.out" "$out/devices.json" "$out/devices.tools.out" ||
        fail "--json output"
) || exit

# ibv_asyncwatch: upstream's on upstream's library and ours on ours watch
# each device while its netdev goes down and up; they must print the same
# lines.  Last: the flaps may renumber GIDs.
heading "ibv_asyncwatch: ours and upstream's, while the netdevs go down and up"
watchers=()
start_watcher() {
    local side=$1 tools=$2 device=$3 prog
    prog=$(tools_dir_of "$tools")/ibv_asyncwatch
    ( use_libs "$side" && exec "$prog" -d "$device" ) > "$out/async.$tools.$device" 2>&1 &
    watchers+=("$!:$side:$tools:$device")
    echo "watching $device: $prog on the $side libraries (pid $!)"
}
# Waits up to 60 s until every watcher's output has a line containing
# TEXT; bash alone reads the files (a process costs ~0.1 s under TCG).
wait_lines() {
    local text=$1 w tools device lines deadline=$((SECONDS + 60))
    while ((SECONDS < deadline)); do
        sleep 0.2
        for w in "${watchers[@]}"; do
            IFS=: read -r _ _ tools device <<< "$w"
            mapfile -t lines < "$out/async.$tools.$device"
            [[ "${lines[*]}" == *"$text"* ]] || continue 2
        done
        return 0
    done
    for w in "${watchers[@]}"; do IFS=: read -r _ _ tools device <<< "$w"; cat "$out/async.$tools.$device"; done
    fail "not every ibv_asyncwatch printed '$text' within 60 s"
}
for device in "$dev" "$siw"; do
    start_watcher reference upstream "$device"
    start_watcher ours ours "$device"
done
wait_lines 'async event FD'
for w in "${watchers[@]}"; do
    IFS=: read -r pid side tools device <<< "$w"
    lib=$(libibverbs_of "$pid") || fail "pid $pid mapped no libibverbs"
    [ "$(readlink -f "$lib")" = "$(readlink -f "$(libdir_for "$side" libibverbs.so.1)/libibverbs.so.1")" ] ||
        fail "$tools ibv_asyncwatch -d $device runs on $lib, not the $side library"
    echo "  $tools ibv_asyncwatch -d $device: $lib"
done
ip link set "$RDMAVM_RXE_NETDEV" down
ip link set "$RDMAVM_SIW_NETDEV" down
wait_lines 'IBV_EVENT_PORT_ERR'
ip link set "$RDMAVM_RXE_NETDEV" up
ip link set "$RDMAVM_SIW_NETDEV" up
wait_lines 'IBV_EVENT_PORT_ACTIVE'
sleep 1 # for any later event (GID changes), which both must print too
for w in "${watchers[@]}"; do kill -KILL "${w%%:*}"; done
wait 2> /dev/null
# The descriptor number in the first line is the library's: ours holds
# one more descriptor open than upstream's, so it is not compared.
for device in "$dev" "$siw"; do
    if diff -u --label upstream --label ours <(sed '1s/FD [0-9]*$/FD N/' "$out/async.upstream.$device") \
            <(sed '1s/FD [0-9]*$/FD N/' "$out/async.ours.$device"); then
        echo "ok ibv_asyncwatch -d $device: identical but for the FD number"
        sed 's/^/  /' "$out/async.ours.$device"
    else
        failed=1; echo "FAIL ibv_asyncwatch -d $device: output differs"
    fi
done
[ $failed = 0 ] || fail "ibv_asyncwatch differs from upstream's"
echo "ok devinfo: all checks passed"
