#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's rdmacm-utils over one device, in one guest:
#     rdmacm-utils.sh rxe|siw ours|mixed
# "ours" runs part 1, "mixed" parts 2 and 3: two tests per device, so
# that each fits its time limit on a busy 2-core machine and the two run
# side by side.
# 1. On our librdmacm and our libibverbs: rping (sends, RDMA reads and
#    writes, data checked with -V), ucmatose (several connections,
#    sends), rdma_server/rdma_client (the rdma_verbs.h helpers), cmtime
#    (connection setup and teardown, 20 at once); on rxe also rping -q
#    (a QP the program creates and moves through rdma_init_qp_attr and
#    rdma_establish itself), udaddy (UD port space: address handles from
#    the events),
#    mckey (multicast join and leave, UD sends to the group),
#    rdma_xserver/rdma_xclient (an id driven by rdma_get_request).
#    iWARP has neither UD nor multicast.
# 2. Mixed libraries: rping and ucmatose with our librdmacm on upstream's
#    libibverbs (side rdmacm), and on rxe with upstream's librdmacm on our
#    libibverbs (side verbs; siw.sh already runs those over siw0).
# 3. Wire compatibility: rping and ucmatose (udaddy too, on rxe) with
#    one role on upstream's libraries and the other on ours, both ways.
# The loader's log proves every process's libraries (pair.sh).  siw's
# ucmatose may hit a kernel race (pair.sh: siw_mpa_extra_data) and then
# runs once more.  VM_ALL_REFERENCE=1 runs all of it on upstream's
# libraries: the script tried on the oracle alone.
# 45 s a pair: they take up to ~25 s on a busy 2-core host, and a pair
# caught by the siw race ends only when that timeout stops its server.
export PAIR_WAIT=cm PAIR_TIMEOUT=45
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

case $1 in
    rxe) ip=$RDMAVM_RXE_IP race= ;;
    siw) ip=$RDMAVM_SIW_IP race=siw_mpa_extra_data ;;
    *) fail "usage: rdmacm-utils.sh rxe|siw ours|mixed" ;;
esac
device=$1
case $2 in
    ours|mixed) part=$2 ;;
    *) fail "usage: rdmacm-utils.sh rxe|siw ours|mixed" ;;
esac

rping_pair() {
    pair "rping$1" 'ping data: rdma-ping-9' \
        rping -s -a "$ip" -C 10 -v -V -- rping -c -a "$ip" -C 10 -v -V
}
ucmatose_pair() {
    PAIR_KNOWN_RACE=$race pair "ucmatose$1" 'test complete' \
        ucmatose -b "$ip" -c 2 -C 10 -- ucmatose -s "$ip" -c 2 -C 10
}
udaddy_pair() {
    pair "udaddy$1" 'test complete' \
        udaddy -b "$ip" -c 2 -C 10 -- udaddy -s "$ip" -c 2 -C 10
}

if [ "$part" = ours ]; then
    heading "$device ($ip): upstream's rdmacm-utils on our librdmacm and libibverbs"
    rping_pair
    ucmatose_pair
    PAIR_SERVER_PATTERN='rdma_server: end 0' pair "rdma_server/rdma_client" 'rdma_client: end 0' \
        rdma_server -s "$ip" -- rdma_client -s "$ip"
    PAIR_SERVER_STAYS=1 pair "cmtime" '^connect +:' \
        cmtime -b "$ip" -c 20 -- cmtime -s "$ip" -c 20
    if [ "$device" = rxe ]; then
        # iWARP moves a QP to RTS only inside the kernel's connect: upstream's
        # rdma_establish fails there with EINVAL
        pair "rping -q (the program's own QP, rdma_init_qp_attr)" 'ping data: rdma-ping-9' \
            rping -s -q -a "$ip" -C 10 -v -V -- rping -c -q -a "$ip" -C 10 -v -V
        udaddy_pair
        # the receiver has joined (its lines unbuffered) before the sender
        # starts, which sends 3 s after its own join
        PAIR_WAIT='log:^mckey: joined' pair "mckey" 'data transfers complete' \
            stdbuf -oL mckey -m 239.0.0.1 -b "$ip" -- mckey -m 239.0.0.1 -b "$ip" -s
        PAIR_SERVER_PATTERN='rdma_xserver: end 0' pair "rdma_xserver/rdma_xclient" 'rdma_xclient: end 0' \
            rdma_xserver -c r -- rdma_xclient -s "$ip" -c r
    fi
else
    heading "$device: our librdmacm on upstream's libibverbs"
    PAIR_SIDE=rdmacm rping_pair " (side rdmacm)"
    PAIR_SIDE=rdmacm ucmatose_pair " (side rdmacm)"
    if [ "$device" = rxe ]; then
        heading "$device: upstream's librdmacm on our libibverbs"
        PAIR_SIDE=verbs rping_pair " (side verbs)"
        PAIR_SIDE=verbs ucmatose_pair " (side verbs)"
    fi

    heading "$device: wire compatibility, one role on upstream's libraries"
    PAIR_SERVER_SIDE=reference rping_pair " (upstream server, our client)"
    PAIR_CLIENT_SIDE=reference rping_pair " (our server, upstream client)"
    PAIR_SERVER_SIDE=reference ucmatose_pair " (upstream server, our client)"
    PAIR_CLIENT_SIDE=reference ucmatose_pair " (our server, upstream client)"
    if [ "$device" = rxe ]; then
        PAIR_SERVER_SIDE=reference udaddy_pair " (upstream server, our client)"
        PAIR_CLIENT_SIDE=reference udaddy_pair " (our server, upstream client)"
    fi
fi
pair_summary
