#!/bin/bash
# SPDX-License-Identifier: MIT
# stress.c (its header says what runs at once) on our libibverbs:
# natively with 4 data threads x 600 iterations, then under valgrind's
# helgrind and drd, which run it 50-100x slower under TCG, so with 2 data
# threads x 8 iterations (the helper threads run as long as the data
# threads do).  Either tool's report fails the run (exit 99): there is no
# suppression file, as none is needed (the test's own
# bookkeeping is atomics, which it asks both tools to ignore: untracked()
# in stress.c, which orders nothing).  rxe's rings, the only memory the
# kernel writes behind the tools' backs, are read with atomics under the
# provider's locks, and neither tool sees the kernel's side.  valgrind's
# own default suppressions stay: with --default-suppressions=no, helgrind
# reported 53 races, every one inside glibc (the words of a locked mutex,
# and fork()'s stack lists in the child), none in our code.  Fork
# protection from ibv_fork_init(), and from RDMAV_FORK_SAFE=1 under
# helgrind.
# The valgrind runs are not traced by run_on (LD_DEBUG costs a valgrind'd
# run over a minute here): the program's own first line names the
# libibverbs it runs on (vmtest.c), which must be ours.
# Usage: stress.sh VM-STRESS
. "$(dirname "$0")/lib.sh"

prog=$1
failed=0

# step LABEL COMMAND...: a run that must exit 0
step() {
    local label=$1; shift
    heading "$label"
    local t0=$SECONDS
    if "$@"; then
        echo "ok $label ($((SECONDS - t0)) s)"
    else
        echo "FAIL: $label (exit $?, $((SECONDS - t0)) s)"
        failed=1
    fi
}

# under_valgrind TOOL ARG...: the program under TOOL on our libraries
under_valgrind() {
    local tool=$1 out status=0; shift
    out=$( (use_libs ours && valgrind -q --error-exitcode=99 --tool="$tool" "$prog" "$@") 2>&1) ||
        status=$?
    echo "$out"
    grep -qF "stress on our libibverbs ($vm_build/libverbs/" <<< "$out" ||
        { echo "  WRONG LIBRARY: not on ours ($vm_build/libverbs)"; status=120; }
    return $status
}

step "natively, ibv_fork_init()" run_on ours "$prog" 4 600 60
export RDMAV_FORK_SAFE=1
step "under helgrind, RDMAV_FORK_SAFE=1" under_valgrind helgrind 2 8 150
unset RDMAV_FORK_SAFE
step "under drd, ibv_fork_init()" under_valgrind drd 2 8 150
[ $failed = 0 ] || fail "stress"
