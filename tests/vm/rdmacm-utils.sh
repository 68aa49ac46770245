#!/bin/bash
# SPDX-License-Identifier: MIT
# rdmacm-utils over one device, ours (build/tools) and upstream's, in one
# guest:
#     rdmacm-utils.sh rxe|siw ours|mixed|mixed2
# "ours" runs part 1, "mixed" parts 2 and 3, "mixed2" (rxe only) the
# part 3 pairs of udaddy and mckey: separate tests, so that
# each fits its time limit on a busy 2-core machine and they run side by
# side.
# 1. On our librdmacm and our libibverbs: upstream's rping (sends, RDMA
#    reads and writes, data checked with -V) and ucmatose (several
#    connections, sends), which judge the library; then our tools against
#    themselves: rping, ucmatose, rdma_server/rdma_client and
#    rdma_xserver/rdma_xclient (the rdma_verbs.h helpers), cmtime (setup
#    and teardown, 20 at once); on rxe also our rping -q (a QP the
#    program creates and moves through rdma_init_qp_attr and
#    rdma_establish itself), udaddy (UD port space: address handles from
#    the events) and mckey (multicast join and leave, UD sends to the
#    group).  iWARP has neither UD nor multicast.
#    On rxe, every tool of ours given a bad option exits as upstream's
#    does, with its usage text, and rdma_xclient -c x fails as
#    upstream's does (neither rxe nor siw has XRC: rdma_create_ep
#    refuses the XRC QP, EOPNOTSUPP).
# 2. Mixed libraries: upstream's rping with our librdmacm on upstream's
#    libibverbs (side rdmacm), and on rxe with upstream's librdmacm on our
#    libibverbs (side verbs; siw.sh already runs those over siw0).
# 3. Wire compatibility of our tools and libraries at once: each of our
#    tools on our libraries against upstream's tool on upstream's
#    libraries, in both roles (udaddy and mckey on rxe only).
# The loader's log proves every process's libraries and the log names
# each role's program by its path (pair.sh).  siw's
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
    *) fail "usage: rdmacm-utils.sh rxe|siw ours|mixed|mixed2" ;;
esac
device=$1
case $2 in
    ours|mixed) part=$2 ;;
    mixed2) [ "$1" = rxe ] || fail "mixed2: rxe only (iWARP has no UD)"; part=$2 ;;
    *) fail "usage: rdmacm-utils.sh rxe|siw ours|mixed|mixed2" ;;
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
rdma_server_pair() {
    PAIR_SERVER_PATTERN='rdma_server: end 0' pair "rdma_server/rdma_client$1" 'rdma_client: end 0' \
        rdma_server -s "$ip" -- rdma_client -s "$ip"
}
# the receiver has joined (its lines unbuffered) before the sender starts,
# which sends 3 s after its own join
mckey_pair() {
    PAIR_WAIT='log:^mckey: joined' pair "mckey$1" 'data transfers complete' \
        stdbuf -oL mckey -m 239.0.0.1 -b "$ip" -- mckey -m 239.0.0.1 -b "$ip" -s
}
rdma_xserver_pair() {
    PAIR_SERVER_PATTERN='rdma_xserver: end 0' pair "rdma_xserver/rdma_xclient$1" 'rdma_xclient: end 0' \
        rdma_xserver -c r -- rdma_xclient -s "$ip" -c r
}
cmtime_pair() {
    PAIR_SERVER_STAYS=1 pair "cmtime$1" '^connect +:' \
        cmtime -b "$ip" -c 20 -- cmtime -s "$ip" -c 20
}

# Our tool and upstream's, each given a bad option: the same exit status,
# our usage text printed, no crash.
bad_options() {
    local tool ours theirs out
    for tool in rping ucmatose udaddy mckey rdma_server rdma_client rdma_xserver rdma_xclient \
        cmtime; do
        out=$("$vm_build/tools/$tool" -Z 2>&1)
        ours=$?
        "$vm_reference/usr/bin/$tool" -Z > /dev/null 2>&1
        theirs=$?
        if [ $ours != $theirs ] || ! grep -qiE 'usage|^rping -s' <<< "$out"; then
            pair_failed=$((pair_failed + 1))
            echo "FAIL $tool -Z: exit $ours (upstream's: $theirs), output: $out"
        else
            echo "ok $tool -Z: exit $ours as upstream's, usage printed"
        fi
    done
}

# rxe has no XRC: our rdma_xclient -c x must fail as upstream's does, in
# rdma_create_ep with EOPNOTSUPP (exit 255), each on its own libraries.
# No server is needed: the QP is refused before any connection.
xrc_refused() {
    local ours theirs out theirs_out
    out=$(run_on ours "$vm_build/tools/rdma_xclient" -s "$ip" -c x 2>&1)
    ours=$?
    theirs_out=$(run_on reference "$vm_reference/usr/bin/rdma_xclient" -s "$ip" -c x 2>&1)
    theirs=$?
    if [ $ours != $theirs ] || ! grep -q '^rdma_create_ep: Operation not supported' <<< "$out" ||
        ! grep -q '^rdma_create_ep: Operation not supported' <<< "$theirs_out"; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL rdma_xclient -c x: exit $ours (upstream's: $theirs), output: $out"
        echo "upstream's output: $theirs_out"
    else
        echo "ok rdma_xclient -c x: exit $ours as upstream's, rdma_create_ep: Operation not supported"
    fi
}

if [ "$part" = ours ]; then
    heading "$device ($ip): upstream's rping and ucmatose on our librdmacm and libibverbs"
    rping_pair
    ucmatose_pair
    # plugin mode (plugins.sh) judges our core under upstream's providers
    # with upstream's programs alone; ours are judged in the rdmacm tests
    if [ -n "${VM_PLUGINS:-}" ]; then
        rdma_server_pair
        cmtime_pair
        pair_summary
        exit
    fi
    heading "$device ($ip): our tools on our libraries"
    export PAIR_TOOLS=ours
    rping_pair
    ucmatose_pair
    rdma_server_pair
    rdma_xserver_pair
    cmtime_pair
    if [ "$device" = rxe ]; then
        # iWARP moves a QP to RTS only inside the kernel's connect: upstream's
        # rdma_establish fails there with EINVAL
        pair "rping -q (the program's own QP, rdma_init_qp_attr)" 'ping data: rdma-ping-9' \
            rping -s -q -a "$ip" -C 10 -v -V -- rping -c -q -a "$ip" -C 10 -v -V
        udaddy_pair
        mckey_pair
        unset PAIR_TOOLS
        heading "bad options: our tools against upstream's"
        bad_options
        xrc_refused
    fi
else
    if [ "$part" = mixed ]; then
        heading "$device: upstream's rping, our librdmacm on upstream's libibverbs"
        PAIR_SIDE=rdmacm rping_pair " (side rdmacm)"
        if [ "$device" = rxe ]; then
            heading "$device: upstream's rping, upstream's librdmacm on our libibverbs"
            PAIR_SIDE=verbs rping_pair " (side verbs)"
        fi
        pairs=(rping_pair ucmatose_pair rdma_server_pair rdma_xserver_pair cmtime_pair)
    else
        pairs=(udaddy_pair mckey_pair)
    fi

    heading "$device: wire compatibility, our tools on our libraries, upstream's on upstream's"
    for each in "${pairs[@]}"; do
        PAIR_SERVER_SIDE=reference PAIR_SERVER_TOOLS=upstream PAIR_CLIENT_TOOLS=ours \
            $each " (upstream's server, our client)"
        PAIR_CLIENT_SIDE=reference PAIR_CLIENT_TOOLS=upstream PAIR_SERVER_TOOLS=ours \
            $each " (our server, upstream's client)"
    done
fi
pair_summary
