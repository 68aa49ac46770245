#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs a C test (built against our headers, public API only) on upstream's
# libibverbs first, then on ours:
#     on-both.sh [--cmd-modes] PROGRAM [ARG...]
# The test's expectations are upstream's behaviour on this kernel, so it
# must pass on upstream's library too: a failure there means the test is
# wrong (or must name upstream's deviation in its code), not our library.
# With --cmd-modes ours runs three times: kernel commands as it picks
# them, then forced through write() only, then ioctl() only
# (OPENVERBS_CMD_MODE), since error and cleanup paths differ per
# transport.  Upstream's libibverbs finds its rxe provider in the
# system's ibverbs-providers (the same release; see the oracle test).
. "$(dirname "$0")/lib.sh"

modes=(auto)
[ "$1" = --cmd-modes ] && { modes=(auto write ioctl); shift; }

heading "on upstream's libibverbs: $*"
run_on reference "$@" || fail "$1 fails on upstream's libibverbs (exit $?)"
for mode in "${modes[@]}"; do
    heading "on our libibverbs, OPENVERBS_CMD_MODE=$mode: $*"
    OPENVERBS_CMD_MODE=$mode run_on ours "$@" ||
        fail "$1 fails on our libibverbs with OPENVERBS_CMD_MODE=$mode (exit $?)"
done
echo "ok $1 passes on both libraries"
