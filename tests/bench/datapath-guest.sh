#!/bin/bash
# SPDX-License-Identifier: MIT
# The in-guest half of the datapath phase of tests/bench/run.sh: runs
# bench_datapath under callgrind on both libraries inside one
# tests/vm/rdma-vm guest.  Instruction counts are deterministic, so each
# library runs once (BENCH_DATAPATH_ITERATIONS operations per profile,
# BENCH_DATAPATH_ROUNDS profiles per operation).
#
#   datapath-guest.sh PROGRAM OURS_LIBDIR UPSTREAM_LIBDIR
#
# Leaves in the current directory, per SIDE (ours, upstream): SIDE.out,
# the program's facts, and callgrind.SIDE.PID.N, one profile per phase.
# Exits non-zero if a run used the wrong libibverbs or upstream's side
# failed; a failure on our side is left for the table to show as n/a.
set -uo pipefail

if [ "${RDMAVM:-}" != 1 ]; then
    echo "datapath-guest.sh: run me through tests/vm/rdma-vm" >&2
    exit 125
fi
[ $# = 3 ] || { echo "usage: datapath-guest.sh PROGRAM OURS_LIBDIR UPSTREAM_LIBDIR" >&2; exit 64; }
prog=$1
declare -A libdir=([ours]=$2 [upstream]=$3)
iterations=${BENCH_DATAPATH_ITERATIONS:-100}
rounds=${BENCH_DATAPATH_ROUNDS:-3}

# Collection is on only inside the measured_*() operations, and each
# phase_*() writes one profile (see bench_datapath.c).
callgrind=(valgrind --tool=callgrind --collect-atstart=no
           --toggle-collect='measured_*' --dump-after='phase_*')

for side in ours upstream; do
    LD_LIBRARY_PATH=${libdir[$side]} "${callgrind[@]}" \
        --callgrind-out-file="callgrind.$side.%p" --log-file="valgrind.$side.log" \
        "$prog" "${libdir[$side]}" "$iterations" "$rounds" > "$side.out" 2>&1
    status=$?
    echo "$side: exit $status"
    cat "$side.out"
    case $status in
        0) ;;
        2) echo "datapath-guest.sh: $side's run did not use ${libdir[$side]}" >&2; exit 2 ;;
        *) cat "valgrind.$side.log" >&2
           [ "$side" = ours ] || { echo "datapath-guest.sh: upstream's side failed" >&2; exit 1; } ;;
    esac
done
valgrind --version > valgrind.version
