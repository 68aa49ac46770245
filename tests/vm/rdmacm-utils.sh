#!/bin/bash
# SPDX-License-Identifier: MIT
# rdmacm-utils over one device, ours (build/tools) and upstream's, in one
# guest:
#     rdmacm-utils.sh rxe|siw PART...     PART: ours, mixed, mixed2 (rxe)
# Tests: rdmacm-rxe (rxe ours mixed2), rdmacm-rxe-mixed (rxe mixed) and
# rdmacm-siw (siw ours mixed), balanced so that each fits its time limit
# on a busy 2-core machine and two run side by side; plugins.sh runs
# "siw ours" in plugin mode (upstream's programs only).
# ours:   upstream's rping (sends, RDMA reads and writes, data checked with
#         -V) and ucmatose (several connections, sends) on our librdmacm
#         and libibverbs: the library judged by upstream's programs.  Then
#         our tools against themselves on our libraries (the matrix below):
#         rping, ucmatose, rdma_server/rdma_client and
#         rdma_xserver/rdma_xclient (the rdma_verbs.h helpers), cmtime
#         (setup and teardown, 20 at once), udaddy (UD port space: address
#         handles from the events), mckey (multicast join and leave, UD
#         sends to the group) and rping -q (a QP the program creates and
#         moves through rdma_init_qp_attr and rdma_establish itself: not
#         on iWARP, where only the kernel's connect moves a QP to RTS).
#         On rxe, every tool of ours given a bad option exits as upstream's
#         does, with its usage text, and rdma_xclient -c x fails as
#         upstream's does (neither rxe nor siw has XRC: rdma_create_ep
#         refuses the XRC QP, EOPNOTSUPP).
# mixed:  upstream's rping on mixed libraries: our librdmacm on upstream's
#         libibverbs (side rdmacm), and on rxe upstream's librdmacm on our
#         libibverbs (side verbs; siw.sh runs that over siw0).  Then wire
#         compatibility of our tools and libraries at once: each of our
#         tools on our libraries against upstream's tool on upstream's
#         libraries, in both roles.
# mixed2: the same for udaddy and mckey (iWARP has neither UD nor
#         multicast).
# Issue 12's matrix, each cell once:
#     tool                        against itself   against upstream's
#                                                  (both roles)
#     rping                       rxe              rxe, siw
#     ucmatose                    rxe              rxe, siw
#     rdma_server/rdma_client     rxe              rxe, siw
#     rdma_xserver/rdma_xclient   rxe, siw         rxe
#     cmtime                      rxe              rxe, siw
#     udaddy, mckey               rxe              rxe
# A tool against itself is not run again over siw0: each of its roles
# runs there on our libraries against upstream's, and the two roles'
# exchange is the programs' own, the same on either device (rxe0 runs
# it).  For rdma_xserver/rdma_xclient it is the other way round: against
# upstream's, the same exchange as over rxe0, so over siw0 only against
# itself, which still takes rdma_create_ep's RC endpoint through iWARP.
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

usage="usage: rdmacm-utils.sh rxe|siw ours|mixed|mixed2..."
case $1 in
    rxe) ip=$RDMAVM_RXE_IP race= ;;
    siw) ip=$RDMAVM_SIW_IP race=siw_mpa_extra_data ;;
    *) fail "$usage" ;;
esac
device=$1
shift
[ $# -gt 0 ] || fail "$usage"
for part; do
    case $part in
        ours|mixed) ;;
        mixed2) [ "$device" = rxe ] || fail "mixed2: rxe only (iWARP has no UD)" ;;
        *) fail "$usage" ;;
    esac
done

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
        if [ $ours != $theirs ] || ! [[ $out =~ [Uu][Ss][Aa][Gg][Ee]|(^|$'\n')'rping -s' ]]; then
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
    local ours theirs out theirs_out refused='rdma_create_ep: Operation not supported'
    out=$(run_on ours "$vm_build/tools/rdma_xclient" -s "$ip" -c x 2>&1)
    ours=$?
    theirs_out=$(run_on reference "$vm_reference/usr/bin/rdma_xclient" -s "$ip" -c x 2>&1)
    theirs=$?
    if [ $ours != $theirs ] || [[ $'\n'$out != *$'\n'$refused* ]] ||
        [[ $'\n'$theirs_out != *$'\n'$refused* ]]; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL rdma_xclient -c x: exit $ours (upstream's: $theirs), output: $out"
        echo "upstream's output: $theirs_out"
    else
        echo "ok rdma_xclient -c x: exit $ours as upstream's, rdma_create_ep: Operation not supported"
    fi
}

# Our tools' server and client against upstream's on upstream's
# libraries: both roles of each pair function named.
against_upstream() {
    local each
    heading "$device: wire compatibility, our tools on our libraries, upstream's on upstream's"
    for each; do
        PAIR_SERVER_SIDE=reference PAIR_SERVER_TOOLS=upstream PAIR_CLIENT_TOOLS=ours \
            $each " (upstream's server, our client)"
        PAIR_CLIENT_SIDE=reference PAIR_CLIENT_TOOLS=upstream PAIR_SERVER_TOOLS=ours \
            $each " (our server, upstream's client)"
    done
}

part_ours() {
    heading "$device ($ip): upstream's rping and ucmatose on our librdmacm and libibverbs"
    rping_pair
    ucmatose_pair
    # plugin mode (plugins.sh) judges our core under upstream's providers
    # with upstream's programs alone; ours are judged in the rdmacm tests
    if [ -n "${VM_PLUGINS:-}" ]; then
        rdma_server_pair
        cmtime_pair
        return
    fi
    heading "$device ($ip): our tools against themselves, on our libraries"
    if [ "$device" = siw ]; then
        PAIR_TOOLS=ours rdma_xserver_pair
        return
    fi
    local each
    for each in rping_pair ucmatose_pair rdma_server_pair rdma_xserver_pair cmtime_pair \
        udaddy_pair mckey_pair; do
        PAIR_TOOLS=ours $each
    done
    PAIR_TOOLS=ours pair "rping -q (the program's own QP, rdma_init_qp_attr)" 'ping data: rdma-ping-9' \
        rping -s -q -a "$ip" -C 10 -v -V -- rping -c -q -a "$ip" -C 10 -v -V
    heading "bad options: our tools against upstream's"
    bad_options
    xrc_refused
}

part_mixed() {
    heading "$device: upstream's rping, our librdmacm on upstream's libibverbs"
    PAIR_SIDE=rdmacm rping_pair " (side rdmacm)"
    if [ "$device" = rxe ]; then
        heading "$device: upstream's rping, upstream's librdmacm on our libibverbs"
        PAIR_SIDE=verbs rping_pair " (side verbs)"
        against_upstream rping_pair ucmatose_pair rdma_server_pair rdma_xserver_pair cmtime_pair
    else
        against_upstream rping_pair ucmatose_pair rdma_server_pair cmtime_pair
    fi
}

part_mixed2() { against_upstream udaddy_pair mckey_pair; }

for part; do "part_$part"; done
pair_summary
