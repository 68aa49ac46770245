#!/bin/bash
# SPDX-License-Identifier: MIT
# The in-guest half of the connect phase of tests/bench/run.sh: upstream's
# cmtime sets up and tears down BENCH_CONNECT_COUNT connections over rxe0,
# server and client on the same library, alternating between ours and
# upstream's round by round (BENCH_CONNECT_ROUNDS) so that drift hits
# both alike.
#
#   connect-guest.sh CMTIME OURS_LIBDIRS UPSTREAM_LIBDIR
#
# cmtime times each step (create id, resolve addr, resolve route, create
# qp, connect, disconnect, destroy) over all connections at once and
# prints its wall time per connection; those are the samples, "SIDE
# cm_STEP US" lines in ./raw, with their sum as cm_total.  Exits non-zero
# if a process used the wrong libibverbs/librdmacm or upstream's side
# failed; a failure on our side is recorded as "ours failed connect ...".
set -uo pipefail

if [ "${RDMAVM:-}" != 1 ]; then
    echo "connect-guest.sh: run me through tests/vm/rdma-vm" >&2
    exit 125
fi
[ $# = 3 ] || { echo "usage: connect-guest.sh CMTIME OURS_LIBDIRS UPSTREAM_LIBDIR" >&2; exit 64; }
cmtime=$1
declare -A libdirs=([ours]=$2 [upstream]=$3)
count=${BENCH_CONNECT_COUNT:-100}
rounds=${BENCH_CONNECT_ROUNDS:-10}
ip=$RDMAVM_RXE_IP
raw=$PWD/raw
: > "$raw"

# shellcheck source=tests/bench/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

# run SIDE [traced]: one server and one client on SIDE's libraries; the
# client's step lines are recorded unless traced (the untimed first run,
# under the loader's log).
run() {
    local side=$1 traced=${2:-} server out rc line samples
    LD_LIBRARY_PATH=${libdirs[$side]} "$cmtime" -b "$ip" -c "$count" > /dev/null 2>&1 &
    server=$!
    for _ in $(seq 100); do cm_listening && break; sleep 0.1; done
    check_libs "$side" server mapped_lib "$server"
    if [ -n "$traced" ]; then
        rm -f /tmp/ld.*
        out=$(LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld LD_LIBRARY_PATH=${libdirs[$side]} \
              timeout 120 "$cmtime" -s "$ip" -c "$count" 2>&1)
        rc=$?
        [ $rc != 0 ] || check_libs "$side" client traced_lib
    else
        out=$(LD_LIBRARY_PATH=${libdirs[$side]} timeout 120 "$cmtime" -s "$ip" -c "$count" 2>&1)
        rc=$?
    fi
    kill "$server" 2> /dev/null
    wait "$server" 2> /dev/null
    # rows like "resolve addr :  24.78  24.58  22849.00  4955.20"
    if [ $rc = 0 ] && grep -q '^connect *:' <<< "$out"; then
        [ -n "$traced" ] && return 0
        samples=()
        while read -r line; do
            [[ $line =~ ^([a-z ]+[a-z])\ *:\ .*\ ([0-9.]+)$ ]] || continue
            samples+=("${BASH_REMATCH[1]// /_} ${BASH_REMATCH[2]}")
        done <<< "$out"
        printf "$side cm_%s\n" "${samples[@]}" >> "$raw"
        printf '%s\n' "${samples[@]}" | awk -v side="$side" '{ t += $2 } END { print side, "cm_total", t }' >> "$raw"
        return 0
    fi
    echo "$out" >&2
    [ "$side" = ours ] || { echo "connect-guest.sh: upstream's cmtime failed (exit $rc)" >&2; exit 1; }
    echo "ours failed connect exit $rc: $(grep -m1 -iE 'fail|error' <<< "$out")" >> "$raw"
    return 1
}

echo 0 > /proc/sys/kernel/randomize_va_space
for side in ours upstream; do run $side traced; done
sides=(ours upstream)
for ((i = 0; i < rounds; i++)); do
    for side in "${sides[@]}"; do run "$side"; done
    sides=("${sides[1]}" "${sides[0]}")
done
echo "connect runs done at ${SECONDS} s"
grep -c '' "$raw"
exit 0
