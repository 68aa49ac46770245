#!/bin/bash
# SPDX-License-Identifier: MIT
# ibv_devices, ibv_devinfo and ibv_asyncwatch, three ways, for rxe0, siw0
# and all devices:
#   reference  upstream's tools on upstream's libibverbs: the oracle;
#   library    upstream's tools on our libibverbs: byte for byte the same;
#   tools      our tools (tools/verbs) on our libibverbs: the same output
#              and exit status, but for a usage text of our own on bad
#              arguments (ours documents --json and --help).
# Then what only ours has: --help, --json (checked against its schema and
# the text output on the host: host-json-check.sh); and both
# ibv_asyncwatch watching the same link flaps.
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d /tmp/devinfo.XXXXXX)
failed=0
dev=$RDMAVM_RXE_DEV
siw=$RDMAVM_SIW_DEV
ours_tools=$vm_build/tools
# kind, name and command line of each comparison; kind "same": stdout,
# stderr and exit status identical; "usage": a bad argument, where the
# exit status and stderr (getopt's message) are identical and both print
# a usage text; "block=CASE": upstream's output is taken from its run of
# CASE, the $dev block of it (upstream prints a device's block the same
# whether -d names it or not: each costs a process less, seconds under TCG).
# Every process costs seconds under TCG (~60 made this test last 220 s),
# so a case runs only where it can tell something: a bad option or a
# device name is the program's own business, which the tools run judges;
# the library run (upstream's programs on ours) needs only the cases that
# reach the library differently: the device list, every query of -v, and
# a port query that fails.  Left out, and what still covers each:
# "-d $dev -i 9" (the bad port: "-i 9" on every device; -d: the block
# cases) and "-x" (getopt's error and the usage text: "-d" without its
# argument, and ibv_asyncwatch -x).
cases=(
    "same devices ibv_devices"
    "same devinfo ibv_devinfo"
    "same devinfo-v ibv_devinfo -v"
    "block=devinfo devinfo-rxe0 ibv_devinfo -d $dev"
    "block=devinfo-v devinfo-long ibv_devinfo --ib-dev=$dev --ib-port=1 --verbose stray"
    "same devinfo-list ibv_devinfo -l"
    "same devinfo-nosuch ibv_devinfo -d nosuch0"
    "same devinfo-port9-all ibv_devinfo -i 9"
    "same asyncwatch-nosuch ibv_asyncwatch -d nosuch0"
    "usage devinfo-noarg ibv_devinfo -d"
    "usage devinfo-port0 ibv_devinfo -i 0"
    "usage asyncwatch-badopt ibv_asyncwatch -x"
)
library_cases=" devices devinfo-v devinfo-port9-all "

# The $dev block of a case's upstream output: from its hca_id line to the
# next one (the blank line that ends a block belongs to it).
upstream_block() {
    local from=$1 name=$2 line inside=0
    while IFS= read -r line; do
        case $line in hca_id:*) [ "$line" = "hca_id:	$dev" ] && inside=1 || inside=0 ;; esac
        [ $inside = 0 ] || printf '%s\n' "$line"
    done < "$out/$from.reference.out" > "$out/$name.reference.out"
    cp "$out/$from.reference.err" "$out/$name.reference.err"
    cp "$out/$from.reference.rc" "$out/$name.reference.rc"
}

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
            [ "$run" = reference ] && [ "${kind#block=}" != "$kind" ] && continue
            [ "$run" = library ] && [[ $library_cases != *" $name "* ]] && continue
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

# Whether two files hold the same bytes, without a process (cmp or diff
# cost more than reading small files in bash under TCG).
same_bytes() {
    local a b
    IFS= read -rd '' a < "$1"
    IFS= read -rd '' b < "$2"
    [ "$a" == "$b" ]
}

# No process per case unless something differs: diff only shows how.
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
    if ! same_bytes "$out/$name.reference.err" "$out/$name.$run.err"; then
        diff -u --label "upstream stderr" --label "$run stderr" \
            "$out/$name.reference.err" "$out/$name.$run.err"
        failed=1; echo "FAIL $name: stderr differs"
    elif [ "$kind" = usage ]; then
        if [[ $'\n'$(< "$out/$name.reference.out") == *$'\n'Usage:* &&
              $'\n'$(< "$out/$name.$run.out") == *$'\n'Usage:* ]]; then
            echo "ok $name: exit $ours, the same error and a usage text"
        else
            failed=1; echo "FAIL $name: no usage text"; cat "$out/$name.$run.out"
        fi
    elif same_bytes "$out/$name.reference.out" "$out/$name.$run.out"; then
        echo "ok $name: identical (${#lines[@]} lines, exit $ours)"
    else
        diff -u --label upstream --label "$run" "$out/$name.reference.out" "$out/$name.$run.out"
        failed=1; echo "FAIL $name: output differs"
    fi
}

# Plugin mode (plugins.sh) judges our core under upstream's providers
# with upstream's tools alone; our tools are judged here, on our own.
runs=(library)
[ -n "${VM_PLUGINS:-}" ] || runs+=(tools)
run_side reference reference upstream
for c in "${cases[@]}"; do
    read -r kind name _ <<< "$c"
    [ "${kind#block=}" = "$kind" ] || upstream_block "${kind#block=}" "$name"
done
run_side library ours upstream
[ -n "${VM_PLUGINS:-}" ] || run_side tools ours ours
for run in "${runs[@]}"; do
    for c in "${cases[@]}"; do
        read -r kind name cmd <<< "$c"
        compare "$run" "$kind" "$name" "$cmd"
    done
done

# The comparisons must have seen real content, not two empty outputs:
# upstream's, which every run matched.
has() { [[ $(< "$out/$1.reference.out") =~ $2 ]] || fail "upstream's ${1//-/ }: $3"; }
has devinfo-rxe0 "hca_id:[[:space:]]*$dev"$'\n' "no $dev block"
has devinfo-long "hca_id:[[:space:]]*$dev"$'\n' "no $dev block"
has devinfo-v 'GID\[ *[0-9]*\]:[[:space:]]*::ffff:192\.0\.2\.1, RoCE v2' "no RoCE v2 GID for 192.0.2.1"
has devinfo "hca_id:[[:space:]]*$siw"$'\n' "no $siw block"
has devinfo-v 'transport:[[:space:]]*iWARP' "no iWARP transport"
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
        mapfile -t lines < "$out/$prog.help"
        [[ ${lines[0]} == 'Usage: '* ]] || fail "$prog --help printed no usage"
        echo "ok $prog --help: exit 0, ${#lines[@]} lines"
    done
    [[ $(< "$out/ibv_devinfo.help") == *--json* ]] || fail "ibv_devinfo --help does not mention --json"
    "$ours_tools/ibv_devinfo" --json > "$out/devinfo.json" || fail "ibv_devinfo --json: exit $?"
    "$ours_tools/ibv_devices" --json > "$out/devices.json" || fail "ibv_devices --json: exit $?"
    # checked on the host (host-json-check.sh): python costs minutes here
    json=$vm_build/devinfo-json
    mkdir -p "$json" &&
        cp "$out/devinfo.json" "$out/devices.json" "$json/" &&
        cp "$out/devinfo-v.tools.out" "$json/devinfo-v.txt" &&
        cp "$out/devices.tools.out" "$json/devices.txt" || fail "cannot leave the --json documents in $json"
    echo "ok --json documents left in $json for the host"
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
# /proc/PID/maps names the file itself: each side's library resolved once
declare -A side_lib
for side in reference ours; do
    side_lib[$side]=$(readlink -f "$(libdir_for "$side" libibverbs.so.1)/libibverbs.so.1")
done
for w in "${watchers[@]}"; do
    IFS=: read -r pid side tools device <<< "$w"
    lib=$(libibverbs_of "$pid") || fail "pid $pid mapped no libibverbs"
    [ "$lib" = "${side_lib[$side]}" ] ||
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
