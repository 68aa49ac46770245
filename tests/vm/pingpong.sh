#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's ibv_TYPE_pingpong (TYPE rc, uc, ud or srq) on our libibverbs
# over rxe0, polling and with --events (-e), rc also with --new_send (-N);
# every run checks the received data (-c).  With --cmd-modes, instead:
# three runs with the kernel commands as our library picks them (ioctl on
# this kernel), forced through write() and forced through ioctl()
# (OPENVERBS_CMD_MODE), under strace to show that each side used that
# transport.
#     pingpong.sh [--cmd-modes] TYPE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

modes=0
[ "$1" = --cmd-modes ] && { modes=1; shift; }
type=$1
prog=ibv_${type}_pingpong
dev=(-d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -c)
# TCG is slow: few exchanges; srq runs 16 QPs, each -n times
case $type in
    rc|uc|ud) iters=(-n 200) ;;
    srq) iters=(-n 25) ;;
    *) fail "usage: pingpong.sh [--cmd-modes] rc|uc|ud|srq" ;;
esac
done_line='[0-9]+ bytes in [0-9.]+ seconds'

if [ $modes = 1 ]; then
    for mode in auto write ioctl; do
        OPENVERBS_CMD_MODE=$mode PAIR_STRACE=1 pair "$prog" "$done_line" \
            "$prog" "${dev[@]}" -n 50 -- "$prog" "${dev[@]}" -n 50 127.0.0.1 &&
            OPENVERBS_CMD_MODE=$mode pair_check_transport
    done
    pair_summary
    exit
fi
pair "$prog" "$done_line" \
    "$prog" "${dev[@]}" "${iters[@]}" -- "$prog" "${dev[@]}" "${iters[@]}" 127.0.0.1
pair "$prog --events" "$done_line" \
    "$prog" "${dev[@]}" "${iters[@]}" -e -- "$prog" "${dev[@]}" "${iters[@]}" -e "$RDMAVM_RXE_IP"
if [ "$type" = rc ]; then
    pair "$prog --new_send" "$done_line" \
        "$prog" "${dev[@]}" "${iters[@]}" -N -- "$prog" "${dev[@]}" "${iters[@]}" -N 127.0.0.1
    pair "$prog --new_send --events" "$done_line" \
        "$prog" "${dev[@]}" "${iters[@]}" -N -e -- "$prog" "${dev[@]}" "${iters[@]}" -N -e 127.0.0.1
fi
pair_summary
