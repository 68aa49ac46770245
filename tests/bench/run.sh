#!/bin/bash
# SPDX-License-Identifier: MIT
# `./run bench`: the same benchmark programs on our libibverbs and on
# upstream's (Debian rdma-core 44, the reference tree), side by side.
#
#   OPENVERBS_BUILD=/abs/build tests/bench/run.sh
#
# Device discovery and open/close need real devices, so they run in one
# tests/vm/rdma-vm guest (guest.sh, both libraries interleaved); the
# fork-safety tree needs none and runs here.  Prints a table of medians
# with ours/upstream ratios and targets.  Benchmarks report, they do not
# judge: the exit status is non-zero only when the harness itself broke
# (a build missing, the guest failed, a run used the wrong library).
# Raw samples stay in $OPENVERBS_BUILD/bench.
#
# Settings: BENCH_COLD_RUNS (50 processes per library), BENCH_STEADY_RUNS
# (10 processes per library) x BENCH_STEADY_COUNT (100 calls each),
# BENCH_FORK_RUNS (5 processes per library).
set -euo pipefail

die() { echo "bench: $*" >&2; exit 1; }

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
build=${OPENVERBS_BUILD:?set OPENVERBS_BUILD to the build directory (absolute)}
build=$(cd "$build" && pwd -P)
ours=$build/libverbs
upstream=$build/reference/root/usr/lib/x86_64-linux-gnu
out=$build/bench
for f in "$ours/libibverbs.so.1" "$upstream/libibverbs.so.1" \
         "$build/tests/bench/bench_device" "$build/tests/bench/bench_fork"; do
    [ -e "$f" ] || die "missing $f (build, and ninja reference.stamp, first)"
done
rm -rf "$out" && mkdir -p "$out"
export BENCH_COLD_RUNS=${BENCH_COLD_RUNS:-50} BENCH_STEADY_RUNS=${BENCH_STEADY_RUNS:-10}
export BENCH_STEADY_COUNT=${BENCH_STEADY_COUNT:-100}
fork_runs=${BENCH_FORK_RUNS:-5}
fork_args=(20000 2000 7)    # live ranges, operations per round, rounds

# Other work on this machine shows up as spread, and a busy host as odd
# ratios: the table names the load it started under.
load=$(cut -d' ' -f1 /proc/loadavg) cpus=$(nproc)

# ------------------------------------------------------------ in the guest
echo "bench: in the qemu guest (rxe0, siw0): discovery and open/close, both libraries"
vm=$src/tests/vm/rdma-vm
"$vm" --prepare > "$out/vm-prepare.log" 2>&1 ||
    { tail -n 20 "$out/vm-prepare.log" >&2; die "preparing the guest failed"; }
# One vCPU: with two, TCG made process start-up bimodal (~0.1 s more
# whenever the idle vCPU had to be woken), which drowned the differences.
# A guest that died under us (125, or 130: qemu or rdma-vm signalled from
# outside) gets another chance; a failing guest.sh does not.
for _ in 1 2 3; do
    rc=0
    (cd "$out" && RDMA_VM_SMP=1 exec "$vm" --timeout 240 bash "$src/tests/bench/guest.sh" \
        "$build/tests/bench/bench_device" "$ours" "$upstream") > "$out/guest.log" 2>&1 || rc=$?
    case $rc in 125|130) ;; *) break ;; esac
    echo "bench: the guest died (status $rc), starting it again"
done
if [ "$rc" != 0 ]; then
    tail -n 30 "$out/guest.log" >&2
    die "the in-guest run failed (status $rc; log: $out/guest.log)"
fi
mv "$out/raw" "$out/guest.raw"

# ------------------------------------------------------------ on the host
echo "bench: on this machine: fork-safety tree, both libraries"
sides=(ours upstream)
for ((i = 0; i < fork_runs; i++)); do
    for side in "${sides[@]}"; do
        if [ "$side" = ours ]; then dir=$ours; else dir=$upstream; fi
        rc=0
        LD_LIBRARY_PATH=$dir "$build/tests/bench/bench_fork" "$dir" "${fork_args[@]}" > "$out/fork.out" 2>&1 || rc=$?
        case $rc in
            0) sed "s/^/$side /" "$out/fork.out" >> "$out/fork.raw" ;;
            2) cat "$out/fork.out" >&2; die "bench_fork did not use $dir" ;;
            *) cat "$out/fork.out" >&2
               [ "$side" = ours ] || die "bench_fork failed on upstream's library"
               echo "ours failed fork $(grep -m1 '^error' "$out/fork.out")" >> "$out/fork.raw" ;;
        esac
    done
    sides=("${sides[1]}" "${sides[0]}")
done
rm -f "$out/fork.out"

# ------------------------------------------------------------ the table
awk -f "$src/tests/bench/table.awk" -v load="$load" -v cpus="$cpus" \
    -v cold_runs="$BENCH_COLD_RUNS" -v steady_runs="$BENCH_STEADY_RUNS" \
    -v steady_count="$BENCH_STEADY_COUNT" -v fork_runs="$fork_runs" -v fork_rounds="${fork_args[2]}" \
    "$out/guest.raw" "$out/fork.raw"
