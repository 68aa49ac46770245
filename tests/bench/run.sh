#!/bin/bash
# SPDX-License-Identifier: MIT
# `./run bench`: the same benchmark programs on our libibverbs and on
# upstream's (Debian rdma-core 44, the reference tree), side by side.
#
#   OPENVERBS_BUILD=/abs/build tests/bench/run.sh [PHASE...]
#
# Phases (all of them by default, in this order):
#   device    device discovery and open/close, timed in one tests/vm/rdma-vm
#             guest (guest.sh, both libraries interleaved)
#   fork      the fork-safety range tree, timed here (no device needed)
#   datapath  user-space instructions per work request and completion on
#             rxe0, counted by callgrind in one guest (datapath-guest.sh)
#   connect   connection setup and teardown over rdma_cm on rxe0, timed by
#             upstream's cmtime on both libraries in one guest
#             (connect-guest.sh): librdmacm with libibverbs, ours against
#             upstream's
#   rsocket   stream rsockets on rxe0: latency and throughput by upstream's
#             rstream on both libraries in one guest (rsocket-guest.sh)
#   size      stripped file sizes here, no guest: our libibverbs (its
#             providers built in) against upstream's core + librxe +
#             libsiw, our librdmacm against upstream's; the minimal
#             variant's too when build-minimal/ (./run test variants) exists
# Prints a table with ours/upstream ratios and targets.  Benchmarks report,
# they do not judge: the exit status is non-zero only when the harness
# itself broke (a build missing, the guest failed, a run used the wrong
# library).  Raw samples stay in $OPENVERBS_BUILD/bench.
#
# Settings: BENCH_COLD_RUNS (50 processes per library), BENCH_STEADY_RUNS
# (10 processes per library) x BENCH_STEADY_COUNT (100 calls each),
# BENCH_FORK_RUNS (5 processes per library), BENCH_DATAPATH_ITERATIONS
# (100 operations per profile) x BENCH_DATAPATH_ROUNDS (3 profiles per
# operation), BENCH_CONNECT_COUNT (100 connections per cmtime run) x
# BENCH_CONNECT_ROUNDS (10 runs per library), BENCH_RSOCKET_ROUNDS (3
# rounds of every rstream size per library).  BENCH_OURS_LIBDIR: take
# "our" libibverbs from there instead of the build (an older build's, to
# compare before and after a change).  BENCH_MINIMAL_BUILD: the minimal
# build whose sizes the size phase adds (build-minimal/ in the sources).
set -euo pipefail

die() { echo "bench: $*" >&2; exit 1; }

all_phases=(size device fork datapath connect rsocket)
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=("${all_phases[@]}")
for p in "${phases[@]}"; do
    case " ${all_phases[*]} " in *" $p "*) ;; *) die "no phase '$p' (${all_phases[*]})" ;; esac
done
wants() { case " ${phases[*]} " in *" $1 "*) return 0 ;; esac; return 1; }

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
build=${OPENVERBS_BUILD:?set OPENVERBS_BUILD to the build directory (absolute)}
build=$(cd "$build" && pwd -P)
ours=$(cd "${BENCH_OURS_LIBDIR:-$build/libverbs}" && pwd -P)
# The reference tree is where the build option reference_dir says.
reference_dir=$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "reference_dir"))')
upstream=${reference_dir:-$build/reference}/root/usr/lib/x86_64-linux-gnu
out=$build/bench
for f in "$ours/libibverbs.so.1" "$upstream/libibverbs.so.1" \
         "$build/tests/bench/bench_device" "$build/tests/bench/bench_fork" \
         "$build/tests/bench/bench_datapath"; do
    [ -e "$f" ] || die "missing $f (build, and ninja reference.stamp, first)"
done
rm -rf "$out" && mkdir -p "$out"
export BENCH_COLD_RUNS=${BENCH_COLD_RUNS:-50} BENCH_STEADY_RUNS=${BENCH_STEADY_RUNS:-10}
export BENCH_STEADY_COUNT=${BENCH_STEADY_COUNT:-100}
export BENCH_DATAPATH_ITERATIONS=${BENCH_DATAPATH_ITERATIONS:-100}
export BENCH_DATAPATH_ROUNDS=${BENCH_DATAPATH_ROUNDS:-3}
export BENCH_CONNECT_COUNT=${BENCH_CONNECT_COUNT:-100} BENCH_CONNECT_ROUNDS=${BENCH_CONNECT_ROUNDS:-10}
export BENCH_RSOCKET_ROUNDS=${BENCH_RSOCKET_ROUNDS:-3}
fork_runs=${BENCH_FORK_RUNS:-5}
fork_args=(20000 2000 7)    # live ranges, operations per round, rounds
raw=()

# Other work on this machine shows up as spread, and a busy host as odd
# ratios: the table names the load it started under.
load=$(cut -d' ' -f1 /proc/loadavg) cpus=$(nproc)

vm=$src/tests/vm/rdma-vm
prepare_vm() {
    [ ! -e "$out/vm-prepare.log" ] || return 0
    "$vm" --prepare > "$out/vm-prepare.log" 2>&1 ||
        { tail -n 20 "$out/vm-prepare.log" >&2; die "preparing the guest failed"; }
}

# in_guest DIR LOG SCRIPT ARG...: runs a guest-side script in one guest
# with one vCPU, in DIR.  With two, TCG made process start-up bimodal
# (~0.1 s more whenever the idle vCPU had to be woken), which drowned the
# differences.  A guest that died under us (125, or 130: qemu or rdma-vm
# signalled from outside) gets another chance; a failing script does not.
in_guest() {
    local dir=$1 log=$2 rc
    shift 2
    prepare_vm
    mkdir -p "$dir"
    for _ in 1 2 3; do
        rc=0
        (cd "$dir" && RDMA_VM_SMP=1 exec "$vm" --timeout "${guest_timeout:-240}" bash "$@") > "$log" 2>&1 || rc=$?
        case $rc in 125|130) ;; *) break ;; esac
        echo "bench: the guest died (status $rc), starting it again"
    done
    if [ "$rc" != 0 ]; then
        tail -n 30 "$log" >&2
        die "the in-guest run failed (status $rc; log: $log)"
    fi
}

# ------------------------------------------------------------ device
phase_device() {
    echo "bench: in the qemu guest (rxe0, siw0): discovery and open/close, both libraries"
    in_guest "$out" "$out/guest.log" "$src/tests/bench/guest.sh" \
        "$build/tests/bench/bench_device" "$ours" "$upstream"
    mv "$out/raw" "$out/guest.raw"
    raw+=("$out/guest.raw")
}

# ------------------------------------------------------------ fork
phase_fork() {
    echo "bench: on this machine: fork-safety tree, both libraries"
    local sides=(ours upstream) side dir rc
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
    raw+=("$out/fork.raw")
}

# ------------------------------------------------------------ datapath
# Each profile becomes one sample per operation: the instructions of every
# object but the benchmark program itself (the libraries and the libc they
# call), divided by the operations.  The kernel is never counted: valgrind
# runs system calls natively, outside its simulated CPU.
datapath_raw() {
    local dir=$1 side f
    for side in ours upstream; do
        if [ ! -s "$dir/$side.out" ] || ! grep -q '^iterations ' "$dir/$side.out"; then
            echo "$side failed datapath $(grep -m1 '^error' "$dir/$side.out" 2> /dev/null || echo '(no output)')"
            continue
        fi
        sed -n "s/^lib /$side dp_lib /p; s/^spins \(.*\) /$side dp_spins_\1 /p" "$dir/$side.out"
        for f in "$dir/callgrind.$side".*.*; do
            awk -f "$src/tests/bench/callgrind.awk" "$f"
        done | awk -v side="$side" -v prog="$build/tests/bench/bench_datapath" \
                   -v n="$(sed -n 's/^iterations //p' "$dir/$side.out")" '
            $1 == "phase" { flush(); phase = $2; next }
            $1 == "object" && $2 != prog && phase != "warmup" {
                total += $3; per_obj = per_obj sprintf(" %s=%g", $2, $3 / n)
            }
            function flush() {
                if (phase != "" && phase != "warmup") {
                    printf "%s dp_%s %g\n", side, phase, total / n
                    printf "%s dp_%s_objects%s\n", side, phase, per_obj
                }
                total = 0; per_obj = ""
            }
            END { flush() }'
    done
    echo "base valgrind $(cat "$dir/valgrind.version" 2> /dev/null)"
}

phase_datapath() {
    echo "bench: in the qemu guest (rxe0): instructions per work request, both libraries"
    in_guest "$out/datapath" "$out/datapath.log" "$src/tests/bench/datapath-guest.sh" \
        "$build/tests/bench/bench_datapath" "$ours" "$upstream"
    datapath_raw "$out/datapath" > "$out/datapath.raw"
    raw+=("$out/datapath.raw")
}

# ------------------------------------------------------------ connect
phase_connect() {
    echo "bench: in the qemu guest (rxe0): rdma_cm connection setup by cmtime, both libraries"
    local cmtime=$upstream/../../bin/cmtime rdmacm=$build/librdmacm
    [ -e "$rdmacm/librdmacm.so.1" ] || die "missing $rdmacm/librdmacm.so.1"
    in_guest "$out/connect" "$out/connect.log" "$src/tests/bench/connect-guest.sh" \
        "$(readlink -f "$cmtime")" "$ours:$rdmacm" "$upstream"
    mv "$out/connect/raw" "$out/connect.raw"
    raw+=("$out/connect.raw")
}

# ------------------------------------------------------------ rsocket
phase_rsocket() {
    echo "bench: in the qemu guest (rxe0): rsocket latency and throughput by rstream, both libraries"
    local rstream=$upstream/../../bin/rstream rdmacm=$build/librdmacm
    [ -e "$rdmacm/librdmacm.so.1" ] || die "missing $rdmacm/librdmacm.so.1"
    # a server and a client process per sample: slower than the others
    guest_timeout=600 in_guest "$out/rsocket" "$out/rsocket.log" "$src/tests/bench/rsocket-guest.sh" \
        "$(readlink -f "$rstream")" "$ours:$rdmacm" "$upstream"
    mv "$out/rsocket/raw" "$out/rsocket.raw"
    raw+=("$out/rsocket.raw")
}

# ------------------------------------------------------------ size
# Sizes after `strip`, as distributions ship libraries (ours carry debug
# information).  Upstream's libibverbs is counted with its librxe and
# libsiw plugins, as ours has those providers built in.
stripped_size() {
    strip -o "$out/stripped" "$1" || die "strip $1 failed"
    stat -c %s "$out/stripped"
    rm -f "$out/stripped"
}

phase_size() {
    echo "bench: on this machine: stripped library sizes, both sides"
    local minimal=${BENCH_MINIMAL_BUILD:-$src/build-minimal} f n total=0 lines=()
    for f in libibverbs.so.1:core libibverbs/librxe-rdmav34.so:rxe libibverbs/libsiw-rdmav34.so:siw; do
        n=$(stripped_size "$upstream/${f%:*}")
        total=$((total + n))
        lines+=("upstream size_verbs_${f#*:} $n")
    done
    lines+=("upstream size_verbs $total")
    lines+=("ours size_verbs $(stripped_size "$ours/libibverbs.so.1")")
    lines+=("upstream size_rdmacm $(stripped_size "$upstream/librdmacm.so.1")")
    [ -e "$build/librdmacm/librdmacm.so.1" ] || die "missing $build/librdmacm/librdmacm.so.1"
    lines+=("ours size_rdmacm $(stripped_size "$build/librdmacm/librdmacm.so.1")")
    # the variants suite's minimal build, when it has been built
    if [ -e "$minimal/libverbs/libibverbs.so.1" ] && [ -e "$minimal/librdmacm/librdmacm.so.1" ]; then
        lines+=("base size_minimal_dir $minimal")
        lines+=("ours size_verbs_minimal $(stripped_size "$minimal/libverbs/libibverbs.so.1")")
        lines+=("ours size_rdmacm_minimal $(stripped_size "$minimal/librdmacm/librdmacm.so.1")")
    fi
    printf '%s\n' "${lines[@]}" > "$out/size.raw"
    raw+=("$out/size.raw")
}

for p in "${phases[@]}"; do "phase_$p"; done

# ------------------------------------------------------------ the table
awk -f "$src/tests/bench/table.awk" -v phases="${phases[*]}" -v load="$load" -v cpus="$cpus" \
    -v cold_runs="$BENCH_COLD_RUNS" -v steady_runs="$BENCH_STEADY_RUNS" \
    -v steady_count="$BENCH_STEADY_COUNT" -v fork_runs="$fork_runs" -v fork_rounds="${fork_args[2]}" \
    -v dp_iterations="$BENCH_DATAPATH_ITERATIONS" -v dp_rounds="$BENCH_DATAPATH_ROUNDS" \
    -v cm_count="$BENCH_CONNECT_COUNT" -v cm_rounds="$BENCH_CONNECT_ROUNDS" \
    -v rs_rounds="$BENCH_RSOCKET_ROUNDS" \
    "${raw[@]}"
