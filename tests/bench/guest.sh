#!/bin/bash
# SPDX-License-Identifier: MIT
# The in-guest half of tests/bench/run.sh: runs bench_device on both
# libraries inside one tests/vm/rdma-vm guest, alternating between them
# round by round so that drift (TCG, a busy host) hits both alike.
#
#   guest.sh PROGRAM OURS_LIBDIR UPSTREAM_LIBDIR
#
# Writes "SIDE KEY VALUE..." lines to ./raw (SIDE: ours, upstream, base).
# Exits non-zero if a run used the wrong libibverbs or upstream's side
# failed; a failure on our side is recorded as "ours failed MODE ERROR"
# and left for the table to show as n/a.
set -uo pipefail

# stage_files rewrites system files: only ever in the guest's throw-away root.
if [ "${RDMAVM:-}" != 1 ] || [ "$(stat -f -c %T /)" != overlayfs ]; then
    echo "guest.sh: run me through tests/vm/rdma-vm" >&2
    exit 125
fi
[ $# = 3 ] || { echo "usage: guest.sh PROGRAM OURS_LIBDIR UPSTREAM_LIBDIR" >&2; exit 64; }
prog=$1
declare -A libdir=([ours]=$2 [upstream]=$3)
cold_runs=${BENCH_COLD_RUNS:-50}
steady_runs=${BENCH_STEADY_RUNS:-10}
steady_count=${BENCH_STEADY_COUNT:-100}
device=${RDMAVM_RXE_DEV:-rxe0}
recording=0

# Samples go to the guest's tmpfs, not through 9p to the shared ./raw,
# and only builtins write them: under TCG every process costs ~0.1 s.
exec 3> /tmp/bench.raw
trap 'cp /tmp/bench.raw raw' EXIT
record() { [ $recording = 0 ] || printf '%s\n' "$*" >&3; }

# run SIDE ARG...: one bench_device process on SIDE's libibverbs; its
# output lines are recorded with the side in front.  Sets $elapsed_us to
# the process's wall time as bash sees it, and $output.
run() {
    local side=$1 rc t0 t1 line
    shift
    t0=$EPOCHREALTIME
    output=$(LD_LIBRARY_PATH=${libdir[$side]} "$prog" "${libdir[$side]}" "$@" 2>&1 3>&-)
    rc=$?
    t1=$EPOCHREALTIME
    elapsed_us=$(( ${t1/./} - ${t0/./} ))
    case $rc in
        0) while read -r line; do
               case $line in object\ *) ;; *) record "$side $line" ;; esac
           done <<< "$output" ;;
        2) echo "$output" >&2
           echo "guest.sh: $side's run did not use ${libdir[$side]}" >&2; exit 2 ;;
        *) echo "$output" >&2
           [ "$side" = ours ] || { echo "guest.sh: upstream's side failed ($*)" >&2; exit 1; }
           line=$(grep -m1 '^error' <<< "$output") || line="exit $rc"
           record "$side failed $1 $line" ;;
    esac
    return $rc
}

# The guest reads the host's files through 9p, where every open is a round
# trip to the host: that would weigh on upstream, which opens ~40 files on
# first use, far more than a real machine's page cache does.  So every
# object either side maps, and upstream's provider configuration, is first
# copied into the guest's own tmpfs (the upper layer of its root overlay).
stage_files() {
    local line objects=() files side
    for side in ours upstream; do
        run $side cold > /dev/null || continue
        while read -r line; do
            case $line in object\ *) objects+=("${line#object }") ;; esac
        done <<< "$output"
    done
    # tar replaces each file by a new one, which lands in the upper layer
    mapfile -t files < <(readlink -e "${objects[@]}" /etc/libibverbs.d/* "$prog" | sort -u)
    tar -cPf - "${files[@]}" | tar -xpPf - ||
        { echo "guest.sh: could not stage ${files[*]}" >&2; exit 1; }
    echo "staged ${#files[@]} files in the guest's tmpfs"
}

# qemu's TCG keys its translated code by virtual address: with address
# space randomisation every process runs through freshly translated code,
# a cost that no CPU has and that dwarfs our library's first call.  Fixed
# addresses let later processes reuse the translations, for both sides.
echo 0 > /proc/sys/kernel/randomize_va_space
stage_files
# Untimed: the first process per library fills caches.
for side in ours upstream; do
    run $side cold > /dev/null
    run $side steady "$device" 1 > /dev/null
done
recording=1
record "base cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
record "base kernel $(uname -r)"

# Cold discovery, measured in the process (see bench_device.c), plus the
# whole process's wall time; /bin/true, a libc-only program, is the
# baseline that run.sh subtracts from it to leave loading the library and
# its dependencies, the first discovery and exit.
sides=(ours upstream)
for ((i = 0; i < cold_runs; i++)); do
    for side in "${sides[@]}"; do
        run $side cold && record "$side process_us $elapsed_us"
    done
    t0=$EPOCHREALTIME; output=$(/bin/true); t1=$EPOCHREALTIME
    record "base process_us $(( ${t1/./} - ${t0/./} ))"
    sides=("${sides[1]}" "${sides[0]}")
done
echo "cold runs done at ${SECONDS} s"

# Warm discovery and open/close: each process reports its medians.
for ((i = 0; i < steady_runs; i++)); do
    for side in "${sides[@]}"; do
        run $side steady "$device" "$steady_count"
    done
    sides=("${sides[1]}" "${sides[0]}")
done
echo "steady runs done at ${SECONDS} s"
grep -E '^(ours|upstream) (lib|devices|objects_loaded|failed|open_ns n/a)' /tmp/bench.raw |
    sort | uniq -c
exit 0
