#!/bin/bash
# SPDX-License-Identifier: MIT
# The rsocket programs (rstream, riostream, rcopy) over one device, in
# one guest (the parts one after the other: a boot costs 10-15 s of CI
# time):
#     rsocket-utils.sh rxe|siw ours|mixed...
# ours:  our programs (build/tools) as server and client, on our
#        librdmacm and libibverbs; on rxe0 two cases run upstream's
#        programs on our libraries instead (upstream_case: they judge the
#        library).
# mixed: our program on our libraries against upstream's program on
#        upstream's libraries, both ways (wire compatibility of the
#        libraries and of what the programs agree on: the sync, -T v's
#        pattern, riostream's turn markers, rcopy's messages).
# The cases: rstream blocking (-T b), non-blocking (-T n), async with
# verified data (-T a -T v; non-blocking where upstream's client is the
# judge, see verified_case), rdma_getaddrinfo resolution (-T r);
# riostream (riomap/riowrite: the iomap path); rcopy moving a file whose
# hash is then compared; keepalive (-k), riostream's other modes, and
# 64-byte (inline) and 16 MiB messages besides the 4 KiB .. 1 MiB ones,
# odd sizes wrapping the receive ring.  Each runs where it can show
# something the others cannot (all_cases says which and why).  A pair
# costs 10-15 s under TCG on an idle 2-core host (20-28 s with
# upstream's server, whose listener sleeps up to its 5 s wake-up
# interval before accepting), mostly program start and connection
# setup, so the cases are few.  The programs' own result lines must
# appear and both ends exit 0; the loader's log proves every process's
# libraries, and the log names each role's program by its path (pair.sh).
# On siw0 (iWARP: no write-with-immediate, rsockets send a 4-byte message
# after each write) upstream's own pairs pass every one of these cases
# (checked with VM_ALL_REFERENCE=1); what it fails is named at the end.
# VM_ALL_REFERENCE=1 runs all of it on upstream's libraries: the script
# tried on the oracle alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

usage() { fail "usage: rsocket-utils.sh rxe|siw ours|mixed..."; }
case $1 in
    rxe) ip=$RDMAVM_RXE_IP
         export PAIR_WAIT=cm ;;
    # iWARP: the kernel's TCP listener comes after the rdma_cm id's LISTEN;
    # an rsocket server sends (its credits) right after ESTABLISHED, so
    # siw's MPA race (pair.sh) can fail a client's connect with EINVAL
    siw) ip=$RDMAVM_SIW_IP
         export PAIR_WAIT=cm+tcp PAIR_KNOWN_RACE=siw_mpa_extra_data ;;
    *) usage ;;
esac
device=$1
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || usage
for part in "${parts[@]}"; do
    case $part in ours|mixed) ;; *) usage ;; esac
done
# rsockets listen on the port the programs default to (rcopy: -p);
# pair.sh's TCP wait (siw) looks there
port=7471
pair_port=$port
export PAIR_TIMEOUT=60

# stream_case PROGRAM LABEL ARGS...: rstream or riostream, server and
# client with the same ARGS.
stream_case() {
    local program=$1 label="$1 $2"
    shift 2
    pair "$label$suffix" '^custom +[0-9]' \
        "$program" -b "$ip" "$@" -- "$program" -s "$ip" "$@"
}
# rcopy: a file of random bytes, its copy's hash compared; the server
# serves forever (PAIR_SERVER_STAYS).
rcopy_case() {
    local src=/tmp/rcopy.src dst
    dst=/tmp/rcopy.$RANDOM
    [ -e $src ] || head -c $((8 << 20)) /dev/urandom > $src
    PAIR_SERVER_STAYS=1 pair "rcopy 8 MiB file$suffix" 'transferring\.\.\.closing\.\.\.done' \
        rcopy -p $port -- rcopy $src "$ip:$dst" -p $port || return 1
    if [ "$(sha256sum < $src)" = "$(sha256sum < "$dst" 2> /dev/null)" ]; then
        echo "ok rcopy$suffix: the copy's sha256 is the source's"
    else
        pair_failed=$((pair_failed + 1))
        echo "FAIL rcopy$suffix: the copy differs from the source ($(stat -c %s "$dst" 2>&1) bytes)"
    fi
    rm -f "$dst"
}

# rstream with verified data (-T v)
verified_case() {
    if [ "$(side_or_reference "${PAIR_CLIENT_SIDE:-ours}")" = reference ]; then
        # Upstream's rstream -T a polls before each read and quits on
        # POLLHUP even with POLLIN set (exit 16), and upstream's rpoll
        # reports POLLHUP once it has seen the peer's DISCONNECT, bytes
        # still queued: on a busy host its client loses the race against
        # any server that closes after its last send, upstream's own too
        # (seen here: all-upstream pairs exit 16 under load).  The wire
        # does not know the mode, so the verified transfer runs without
        # rpoll in that direction; ours report POLLHUP after the data.
        stream_case rstream "non-blocking, verified, 100000 B" -T n -T v -S 100000 -C 20
    else
        stream_case rstream "async, verified, 100000 B" -T a -T v -S 100000 -C 20
    fi
}
# upstream_case CASE ARGS...: the case with upstream's programs on our
# libraries (ours mode only).
upstream_case() {
    local saved=$suffix
    suffix="$suffix (upstream's programs on our libraries)"
    PAIR_TOOLS=upstream "$@"
    suffix=$saved
}
# Which cases a run makes (CI time: a pair costs 10-20 s, 20-40 s with
# upstream's server; 24 pairs in the two tests, 46 before).  What a
# device changes in rsockets is the transport under the stream (iWARP: no
# write-with-immediate, a 4-byte message after each write; its own inline
# size), not the programs' modes (blocking, non-blocking, rpoll,
# rdma_getaddrinfo, keepalive: library logic above the QP), and what the
# peer changes is the wire, which a mode does not (the same messages
# whatever waits for them), so:
#   rxe mixed  4 cases, both ways: each program with our server and with
#              our client, upstream's at the other end (the wire matrix:
#              rstream's stream, blocking and verified under rpoll,
#              riostream's iomap, rcopy's file, on one device);
#   rxe ours   the 7 others (non-blocking, rdma_getaddrinfo, keepalive,
#              riostream -T n and -T a, 64 B and 16 MiB messages), our
#              library's modes at both ends at once; keepalive and
#              riostream -T n with upstream's programs on our libraries.
#              Not the 4 mixed ones: rxe mixed runs each of our roles in
#              them, and ours against ours moves data on rxe0 in
#              rsocket-api's C test (64 MiB checked, 24 pairs) and in
#              these cases on siw0;
#   siw ours   the 5 that move data differently on iWARP: verified data
#              wrapping the ring, riowrite (iomap), rcopy's hash, 64 B
#              (inline) and 16 MiB messages.  Not: blocking 1000000 B
#              (the same stream as 16 MiB, unverified), non-blocking,
#              resolve, keepalive, riostream -T n / -T a (rxe covers those
#              modes);
#   siw mixed  2, both ways: verified data through the stream and
#              riowrite, the two message kinds iWARP carries differently
#              (rxe mixed covers the other modes against upstream; siw
#              ours the other sizes on siw0).
runs() { [[ " $* " == *" $device-$part "* ]]; }
all_cases() {
    runs rxe-mixed &&
        stream_case rstream "blocking 1000000 B (wraps the ring)" -T b -S 1000000 -C 10
    runs rxe-ours &&
        stream_case rstream "non-blocking 64 KiB" -T n -S 65536 -C 100
    runs rxe-mixed siw-ours siw-mixed && verified_case
    runs rxe-ours &&
        stream_case rstream "resolve (rdma_getaddrinfo)" -T r -S 4096 -C 100
    runs rxe-mixed siw-ours siw-mixed &&
        stream_case riostream "blocking, verified, 1000000 B" -T b -T v -S 1000000 -C 10
    runs rxe-mixed siw-ours && rcopy_case
    runs rxe-ours && upstream_case stream_case rstream "keepalive 1 s" -k 1 -S 4096 -C 100
    runs rxe-ours && upstream_case stream_case riostream "non-blocking 64 KiB" -T n -S 65536 -C 50
    runs rxe-ours && stream_case riostream "async, verified, 100000 B" -T a -T v -S 100000 -C 20
    runs rxe-ours siw-ours && stream_case rstream "blocking 64 B" -T b -S 64 -C 1000
    runs rxe-ours siw-ours && stream_case rstream "blocking 16 MiB x 2" -T b -S $((16 << 20)) -C 2
    return 0
}

for part in "${parts[@]}"; do
    if [ "$part" = ours ]; then
        heading "$device ($ip): our rsocket programs on our librdmacm and libibverbs"
        suffix=
        PAIR_TOOLS=ours all_cases
    else
        heading "$device ($ip): wire compatibility, upstream's server on its libraries, our client on ours"
        suffix=" (upstream server, our client)"
        PAIR_SERVER_SIDE=reference PAIR_SERVER_TOOLS=upstream PAIR_CLIENT_TOOLS=ours all_cases
        heading "$device ($ip): wire compatibility, our server on our libraries, upstream's client on its"
        suffix=" (our server, upstream client)"
        PAIR_CLIENT_SIDE=reference PAIR_CLIENT_TOOLS=upstream PAIR_SERVER_TOOLS=ours all_cases
    fi
done
# Not run: rstream without -S (its own size list: under TCG it takes
# minutes, and on siw0 upstream's own pair hangs in it: no result line
# within 60 s); rstream -T f, a plain-TCP mode meant for librspreload's
# fork support (the preload tests run it).
[ "$device" = rxe ] ||
    echo "note: on siw0 every case here passes on upstream's own libraries; rstream's default size list hangs there (upstream too) and is not run"
pair_summary
