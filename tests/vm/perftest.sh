#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's perftest (Debian's build) on our libibverbs over rxe0, server
# and client, out-of-band exchange over TCP, or over rdma_cm with -R:
#     perftest.sh [--cmd-modes] PROGRAM [ARG...]
#     perftest.sh --suite rxe|siw...
# e.g. perftest.sh ib_send_bw -c UD.  Few iterations (TCG is slow).  With
# --cmd-modes, instead: three runs with the kernel commands as our library
# picks them (ioctl on this kernel), forced through write() and forced
# through ioctl() (OPENVERBS_CMD_MODE), under strace to show that each
# side used that transport.  --suite runs a list in one guest (each
# device's after the other: a boot costs 10-15 s of CI time): on rxe0
# ib_{write,read,send,atomic}_bw, ib_{write,send}_lat, rdma_cm (-R)
# RC and UD runs; on siw0 the bandwidth programs, over rdma_cm (-R:
# iWARP connects only through it; no atomics, no UD; the latency programs
# fail on upstream's own libraries there, as the suite prints).
#
# perftest needs more than libibverbs: our librdmacm, libibumad
# (upstream's, from the reference packages: no part of this project) and,
# with BIND_NOW, upstream's provider libraries libmlx5.so.1 and
# libefa.so.1 (the system's ibverbs-providers), which bind to our
# IBVERBS_PRIVATE_34 exports.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

modes=0 suites=()
usage="usage: perftest.sh [--cmd-modes] PROGRAM [ARG...] | --suite rxe|siw..."
[ "$1" = --cmd-modes ] && { modes=1; shift; }
if [ "$1" = --suite ]; then
    shift
    suites=("$@")
    [ ${#suites[@]} -gt 0 ] || fail "$usage"
    for suite in "${suites[@]}"; do
        case $suite in rxe|siw) ;; *) fail "no perftest suite '$suite' (rxe|siw)" ;; esac
    done
    set -- ib_write_bw
fi
[ $# -ge 1 ] || fail "$usage"
prog=$1
shift

umad=$(mktemp -d /tmp/umad.XXXXXX)
cp -a "$vm_reference"/usr/lib/x86_64-linux-gnu/libibumad.so.3* "$umad"/
export LD_LIBRARY_PATH=$umad${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

heading "$prog starts on the $pair_side libraries"
# (--version prints the version and exits non-zero)
version=$( (use_libs "$pair_side" && exec "$prog" --version) 2>&1)
echo "$version"
[[ $version == Version:* ]] || fail "$prog cannot start"

# not every server prints the results; each prints its test banner
export PAIR_SERVER_PATTERN='^-{20,}'

result_of() {
    case $1 in
        *_lat) echo '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' ;;
        *) echo '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' ;;
    esac
}

# perf DEVICE PROGRAM [ARG...]: one pair; -R (rdma_cm) runs reach the
# server by the device's address and wait for its rdma_cm listener (on
# siw0 also for the TCP listener under it: the id says LISTEN before
# siw's socket listens, and a client that connects in between is
# refused).
perf() {
    local dev=$1 p=$2 args ip wait=tcp
    shift 2
    case $dev in
        rxe) args=(-d "$RDMAVM_RXE_DEV" -x "$RDMAVM_RXE_GID") ip=$RDMAVM_RXE_IP ;;
        siw) args=(-d "$RDMAVM_SIW_DEV") ip=$RDMAVM_SIW_IP ;;
    esac
    [[ " $* " == *" -R "* ]] && wait=cm || ip=127.0.0.1
    [ "$wait/$dev" = cm/siw ] && wait=cm+tcp
    args+=(-F "$@")
    local race=
    [ "$wait" = tcp ] || race=perftest_relisten
    PAIR_KNOWN_RACE=$race PAIR_WAIT=$wait pair "$p ${*} ($dev)" "$(result_of "$p")" \
        "$p" "${args[@]}" -- "$p" "${args[@]}" "$ip"
}

bw=(-n 100 -s 4096) lat=(-n 100 -s 64) ud=(-n 100 -s 1024)
for suite in "${suites[@]}"; do
    case $suite in
        rxe)
            # Not ib_read_lat nor ib_atomic_lat (ib_read_bw and
            # ib_atomic_bw post the same RDMA reads and atomics and poll
            # the same completions) nor UD without -R (-R -c UD sends the
            # same datagrams, through an address handle made from
            # rdma_cm's answer): ~35 s of CI time.
            for p in ib_write ib_read ib_send; do
                perf rxe "${p}_bw" "${bw[@]}"
            done
            # 64-byte messages: inline writes and sends
            perf rxe ib_write_lat "${lat[@]}"
            perf rxe ib_send_lat "${lat[@]}"
            # atomics have their own (8-byte) message size
            perf rxe ib_atomic_bw -n 100
            perf rxe ib_write_bw -R "${bw[@]}"
            # UD messages fit rxe0's 1024-byte path MTU
            perf rxe ib_send_bw -R -c UD "${ud[@]}" ;;
        siw)
            for p in ib_write_bw ib_read_bw ib_send_bw; do
                perf siw "$p" -R "${bw[@]}"
            done
            echo "not run on siw0, as upstream's own libraries fail them on this kernel:"
            echo "  ib_write_lat -R: a flushed completion (status 5), every time"
            echo "  ib_read_lat -R, ib_send_lat -R: intermittently (refused connects, timeouts," \
                 "no result), seen with PAIR_SIDE=reference as often as on ours" ;;
    esac
done
if [ ${#suites[@]} -gt 0 ]; then
    pair_summary
    exit
fi

args=(-d "$RDMAVM_RXE_DEV" -x "$RDMAVM_RXE_GID" -F "$@")
result=$(result_of "$prog")

if [ $modes = 1 ]; then
    for mode in auto write ioctl; do
        OPENVERBS_CMD_MODE=$mode PAIR_STRACE=1 pair "$prog ${*}" "$result" \
            "$prog" "${args[@]}" -- "$prog" "${args[@]}" 127.0.0.1 &&
            OPENVERBS_CMD_MODE=$mode pair_check_transport
    done
else
    pair "$prog ${*}" "$result" "$prog" "${args[@]}" -- "$prog" "${args[@]}" 127.0.0.1
fi
pair_summary
