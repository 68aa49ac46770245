#!/bin/bash
# SPDX-License-Identifier: MIT
# Self-tests of tests/vm/rdma-vm, run on the host: the vm suite cannot pass
# by accident.
#   selftest.sh status    a failing guest command's status comes back
#   selftest.sh output    everything it prints reaches us, last line included
#   selftest.sh timeout   a hung command is stopped: 124, on time
#   selftest.sh backstop  so is a hung guest
vm=$(dirname "$0")/rdma-vm
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

case $1 in
status)
    "$vm" --timeout 120 -- bash -c 'exit 3'
    rc=$?
    [ $rc = 3 ] || fail "guest 'exit 3' gave $rc"
    ;;
output)
    marker="end-of-output-$$-$RANDOM"
    # 100 kB of stdout, then a line on stderr and the marker last
    # shellcheck disable=SC2016  # expanded by the guest shell
    out=$("$vm" --timeout 120 -- bash -c \
        'seq -f "line %06g ........................................................................." 1000
         echo "stderr-$1" >&2; echo "$1"' _ "$marker") || fail "guest command failed"
    printf '%s\n' "$out" | head -n 2
    printf '%s\n' "$out" | tail -n 3
    [ "$(printf '%s\n' "$out" | grep -c '^line [0-9]\{6\} \.*$')" = 1000 ] || fail "lines lost or mangled"
    grep -qx "stderr-$marker" <<< "$out" || fail "guest stderr missing"
    [ "$(printf '%s\n' "$out" | tail -n 1)" = "$marker" ] || fail "the last line is missing"
    ;;
timeout)
    # the guest's own limit: it counts from the command's start
    out=$("$vm" --timeout 5 -- bash -c 'echo hanging; exec sleep 600' 2> "$log")
    rc=$?
    echo "$out"; cat "$log"
    [ "$out" = hanging ] || fail "the command never started"
    [ $rc = 124 ] || fail "expected 124, got $rc"
    grep -Eq 'timed out after 5 s in the guest .*command ran [5-8]\.' "$log" ||
        fail "not stopped 5-8 s after its start"
    ;;
backstop)
    # the host's limit, for a guest that hangs as a whole (here: one that
    # has not even finished booting after 1 + 1 s)
    start=$SECONDS
    RDMA_VM_BOOT_TIMEOUT=1 "$vm" --timeout 1 -- sleep 600 2> "$log"
    rc=$? took=$((SECONDS - start))
    cat "$log"
    [ $rc = 124 ] || fail "expected 124, got $rc"
    grep -q 'the VM timed out after 2 s' "$log" || fail "not stopped by the host"
    [ $took -lt 15 ] || fail "took $took s"
    ;;
*)
    fail "usage: $0 status|output|timeout|backstop"
    ;;
esac
echo "ok $1"
