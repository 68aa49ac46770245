#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's programs on our libibverbs under valgrind's memcheck, with
# the real kernel: whatever the kernel writes back (ioctl attributes,
# write() responses, async events) must be marked defined by the
# library, and nothing may leak for good.  memcheck's errors make a
# program exit 99, which fails its run.  ibv_devinfo -v reads nearly
# every query verb, through each kernel command transport; an RC
# ping-pong covers the objects and the data path (rxe's queues are
# mmapped, which memcheck takes as defined); ucmatose over rdma_cm
# covers librdmacm, whose every answer (new ids, events, queries, QP
# attributes) the kernel writes behind write()'s back.  (Not rping: it
# prints and compares payloads that RDMA reads and receives put in its
# buffers, which memcheck cannot see being written, whichever libraries
# run.)
# pair.sh reads PAIR_TIMEOUT once, when sourced: a memcheck'd server on a
# busy host needs far more than its default 60 s
export PAIR_TIMEOUT=240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

vg=(valgrind -q --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite --show-leak-kinds=definite)
failed=0

# Not OPENVERBS_CMD_MODE=ioctl (~30 s a run under memcheck): on this
# kernel "auto" probes, then issues every command of these programs
# through ioctl() too; write forces the other transport.
for mode in auto write; do
    heading "ibv_devinfo -v under memcheck (OPENVERBS_CMD_MODE=$mode)"
    out=$(OPENVERBS_CMD_MODE=$mode run_on ours "${vg[@]}" ibv_devinfo -v -d "$RDMAVM_RXE_DEV" 2>&1)
    status=$?
    grep -E '^==|run_on|ours:|WRONG' <<< "$out"
    if [ $status != 0 ] || ! grep -q 'phys_port_cnt' <<< "$out"; then
        echo "FAIL: ibv_devinfo under memcheck, mode $mode (exit $status)"
        failed=1
    fi
done

PAIR_LISTEN_SECONDS=120 pair "ibv_rc_pingpong under memcheck" '[0-9]+ bytes in [0-9.]+ seconds' \
    "${vg[@]}" ibv_rc_pingpong -d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -c -n 5 -e -- \
    "${vg[@]}" ibv_rc_pingpong -d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -c -n 5 -e 127.0.0.1 ||
    grep -h '^==' "$pair_last".srv "$pair_last".cli
PAIR_WAIT=cm PAIR_LISTEN_SECONDS=120 pair "ucmatose under memcheck" 'test complete' \
    "${vg[@]}" ucmatose -b "$RDMAVM_RXE_IP" -c 2 -C 5 -- \
    "${vg[@]}" ucmatose -s "$RDMAVM_RXE_IP" -c 2 -C 5 ||
    grep -h '^==' "$pair_last".srv "$pair_last".cli
[ $failed = 0 ] || fail "ibv_devinfo under memcheck"
pair_summary
