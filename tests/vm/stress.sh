#!/bin/bash
# SPDX-License-Identifier: MIT
# stress.c (its header says what runs at once) on our libibverbs:
# natively with 4 data threads x 1000 iterations, then under valgrind's
# helgrind and drd, which run it 50-100x slower under TCG, so with 2 data
# threads x 20 iterations (the helper threads run as long as the data
# threads do).  Either tool's report fails the run (exit 99): there is no
# suppression file, as none is needed.  rxe's rings, the only memory the
# kernel writes behind the tools' backs, are read with atomics under the
# provider's locks, and neither tool sees the kernel's side.  Fork
# protection from ibv_fork_init(), and from RDMAV_FORK_SAFE=1 under
# helgrind.
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

step "natively, ibv_fork_init()" run_on ours "$prog" 4 1000 60
vg=(valgrind -q --error-exitcode=99)
export RDMAV_FORK_SAFE=1
step "under helgrind, RDMAV_FORK_SAFE=1" run_on ours "${vg[@]}" --tool=helgrind "$prog" 2 20 100
unset RDMAV_FORK_SAFE
step "under drd, ibv_fork_init()" run_on ours "${vg[@]}" --tool=drd "$prog" 2 20 100
[ $failed = 0 ] || fail "stress"
