#!/bin/bash
# SPDX-License-Identifier: MIT
# The in-guest half of the rsocket phase of tests/bench/run.sh: upstream's
# rstream moves data over rxe0 with server and client on the same
# librdmacm (and libibverbs), alternating between ours and upstream's
# round by round (BENCH_RSOCKET_ROUNDS) so that drift hits both alike.
#
#   rsocket-guest.sh RSTREAM OURS_LIBDIRS UPSTREAM_LIBDIR
#
# Per round and side: latency (64-byte ping-pong, one transfer an
# iteration) and throughput (4 KiB, 64 KiB and 1 MiB streams).  rstream's
# "usec/xfer" of the client is the sample: "SIDE rs_KEY NS" lines in ./raw.
# Exits non-zero if a process used the wrong libibverbs/librdmacm or
# upstream's side failed; a failure on our side is recorded as "ours
# failed rsocket ...".
set -uo pipefail

if [ "${RDMAVM:-}" != 1 ]; then
    echo "rsocket-guest.sh: run me through tests/vm/rdma-vm" >&2
    exit 125
fi
[ $# = 3 ] || { echo "usage: rsocket-guest.sh RSTREAM OURS_LIBDIRS UPSTREAM_LIBDIR" >&2; exit 64; }
rstream=$1
declare -A libdirs=([ours]=$2 [upstream]=$3)
rounds=${BENCH_RSOCKET_ROUNDS:-3}
ip=$RDMAVM_RXE_IP
raw=$PWD/raw
: > "$raw"
# KEY and rstream's arguments (-S size, -C transfers an iteration, -I iterations)
configs=("lat_64 -S 64 -C 1 -I 200" "bw_4096 -S 4096 -C 500"
         "bw_65536 -S 65536 -C 100" "bw_1048576 -S 1048576 -C 10")

# shellcheck source=tests/bench/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

# run SIDE KEY ARGS... [traced]: one server and one client on SIDE's
# libraries; the client's usec/xfer is recorded unless traced (the
# untimed first run, under the loader's log).
run() {
    local side=$1 key=$2 traced=$3 server out rc line
    shift 3
    LD_LIBRARY_PATH=${libdirs[$side]} "$rstream" -b "$ip" "$@" > /dev/null 2>&1 &
    server=$!
    for _ in $(seq 150); do cm_listening && break; sleep 0.1; done
    check_libs "$side" server mapped_lib "$server"
    if [ -n "$traced" ]; then
        rm -f /tmp/ld.*
        out=$(LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld LD_LIBRARY_PATH=${libdirs[$side]} \
              timeout 120 "$rstream" -s "$ip" "$@" 2>&1)
        rc=$?
        [ $rc != 0 ] || check_libs "$side" client traced_lib
    else
        out=$(LD_LIBRARY_PATH=${libdirs[$side]} timeout 120 "$rstream" -s "$ip" "$@" 2>&1)
        rc=$?
    fi
    wait "$server" 2> /dev/null
    # "custom    64k     400     1       50m        2.91s      0.36    1454.85"
    line=$(grep -m1 '^custom ' <<< "$out")
    if [ $rc = 0 ] && [ -n "$line" ]; then
        [ -n "$traced" ] && return 0
        awk -v side="$side" -v key="rs_$key" '{ printf "%s %s %.0f\n", side, key, $8 * 1000 }' \
            <<< "$line" >> "$raw"
        return 0
    fi
    echo "$out" >&2
    [ "$side" = ours ] || { echo "rsocket-guest.sh: upstream's rstream failed (exit $rc)" >&2; exit 1; }
    echo "ours failed rsocket $key exit $rc: $(grep -m1 -iE 'fail|error|:' <<< "$out")" >> "$raw"
    return 1
}

echo 0 > /proc/sys/kernel/randomize_va_space
for side in ours upstream; do
    # shellcheck disable=SC2086  # the configuration's words are arguments
    run $side warmup traced ${configs[0]#* }
done
sides=(ours upstream)
for ((i = 0; i < rounds; i++)); do
    for side in "${sides[@]}"; do
        for config in "${configs[@]}"; do
            # shellcheck disable=SC2086
            run "$side" "${config%% *}" "" ${config#* }
        done
    done
    sides=("${sides[1]}" "${sides[0]}")
done
echo "rsocket runs done at ${SECONDS} s"
grep -c '' "$raw"
exit 0
