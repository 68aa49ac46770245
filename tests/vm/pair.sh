# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Server/client pairs of upstream's test programs (ibv_*_pingpong,
# perftest) on our libraries, inside the rdma-vm guest:
#     . "$(dirname "$0")/pair.sh"       (after lib.sh)
#     pair LABEL PATTERN SERVER_CMD... -- CLIENT_CMD...
# Both sides run on our libraries under `timeout $pair_timeout`, the
# client once the server listens on the out-of-band TCP port.  The loader
# logs what both load (lib.sh's traced_run), and the pair fails unless
# every libibverbs/librdmacm they loaded is ours (check_loaded: one check
# for the pair, as run_on's costs seconds under TCG).  A pair passes when
# both exit 0 and the logs have a line matching PATTERN (the programs'
# own result line: a pair that exits 0 without moving data does not
# pass; PAIR_SERVER_PATTERN, if set, is the server's instead).
# PAIR_WAIT=cm waits for an rdma_cm listener instead of the TCP port, for
# up to PAIR_LISTEN_SECONDS.
# OPENVERBS_CMD_MODE, when set, reaches both sides.  Servers still alive
# at exit are killed.  PAIR_SIDE=reference runs both on upstream's
# libraries instead, to try a test script itself; PAIR_SIDE=verbs runs
# our libibverbs under upstream's librdmacm.

pair_timeout=${PAIR_TIMEOUT:-60}
pair_side=${PAIR_SIDE:-ours}
pair_port=18515
pair_failed=0
pair_servers=()
pair_logs=$(mktemp -d /tmp/pair.XXXXXX)
# a FIFO nobody writes: `read -t` on it sleeps without a process
mkfifo "$pair_logs/nap"
exec {pair_nap_fd}<> "$pair_logs/nap"
nap() { read -rt "$1" -u "$pair_nap_fd" _ || true; }

kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill -KILL "$1" 2> /dev/null
}
pair_cleanup() {
    local pid
    for pid in "${pair_servers[@]}"; do kill_tree "$pid"; done
}
trap pair_cleanup EXIT

# Whether a TCP socket listens on port $1, without a process per look
# (each costs ~0.1 s under TCG): state 0A in /proc/net/tcp{,6}.
listening() {
    local want f local_addr state
    printf -v want ':%04X' "$1"
    for f in /proc/net/tcp /proc/net/tcp6; do
        while read -r _ local_addr _ state _; do
            [ "$state" = 0A ] && [[ $local_addr == *"$want" ]] && return 0
        done < "$f"
    done
    return 1
}
# How long a server may take to listen: PAIR_LISTEN_SECONDS (30; a server
# under valgrind on a busy host needs more).
wait_tcp() {
    local end=$((SECONDS + ${PAIR_LISTEN_SECONDS:-30}))
    while ((SECONDS < end)); do listening "$1" && return 0; nap 0.05; done
    return 1
}
# rdma_cm servers listen on an rdma_cm id, not on a TCP port: the kernel's
# resource list shows it (PAIR_WAIT=cm).
wait_cm() {
    local end=$((SECONDS + ${PAIR_LISTEN_SECONDS:-30}))
    while ((SECONDS < end)); do
        rdma res show cm_id 2> /dev/null | grep -q 'state LISTEN' && return 0
        nap 0.1
    done
    return 1
}
wait_cm_free() {
    local i
    for ((i = 0; i < 60; i++)); do
        rdma res show cm_id 2> /dev/null | grep -q 'state LISTEN' || return 0
        nap 0.1
    done
    return 1
}
wait_tcp_free() {
    local i
    for ((i = 0; i < 100; i++)); do listening "$1" || return 0; nap 0.05; done
    return 1
}

# side_run TRACEDIR LOG COMMAND...: COMMAND on $pair_side's libraries,
# traced, bounded in time, its output in LOG.
side_run() {
    local dir=$1 log=$2
    shift 2
    ( use_libs "$pair_side" && traced_run "$dir" timeout -k 3 "$pair_timeout" "$@" ) > "$log" 2>&1
}

pair() {
    local label=$1 pattern=$2 srv=() cli=() log sp sr=0 cr=0 t0 why='' libs
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
    shift
    cli=("$@")
    log=$pair_logs/${label//[^A-Za-z0-9_.-]/_}${OPENVERBS_CMD_MODE:+.$OPENVERBS_CMD_MODE}
    pair_last=$log
    heading "$label${OPENVERBS_CMD_MODE:+ (OPENVERBS_CMD_MODE=$OPENVERBS_CMD_MODE)}"
    echo "server: ${srv[*]}"
    echo "client: ${cli[*]}"
    t0=$EPOCHREALTIME
    if [ -n "${PAIR_STRACE:-}" ]; then
        srv=(strace -f -y -qq -e 'trace=ioctl,write' -o "$log.srv.strace" "${srv[@]}")
        cli=(strace -f -y -qq -e 'trace=ioctl,write' -o "$log.cli.strace" "${cli[@]}")
    fi
    mkdir -p "$log.ld"
    if [ "${PAIR_WAIT:-tcp}" = cm ]; then
        wait_cm_free || echo "an rdma_cm id still listens"
    else
        wait_tcp_free $pair_port || { echo "port $pair_port still busy"; ss -ltnp; }
    fi
    side_run "$log.ld" "$log.srv" "${srv[@]}" &
    sp=$!
    pair_servers+=("$sp")
    if { [ "${PAIR_WAIT:-tcp}" = cm ] && wait_cm; } ||
       { [ "${PAIR_WAIT:-tcp}" != cm ] && wait_tcp $pair_port; }; then
        side_run "$log.ld" "$log.cli" "${cli[@]}" || cr=$?
    else
        cr=1 why="the server never listened (${PAIR_WAIT:-tcp port $pair_port})"
        kill_tree "$sp"
    fi
    wait "$sp" || sr=$?
    libs=$(check_loaded "$pair_side" "$log.ld") || why="not (only) the $pair_side libraries were loaded"
    if [ -z "$why" ]; then
        if [ $sr != 0 ] || [ $cr != 0 ]; then
            why="server exit $sr, client exit $cr"
        elif ! grep -qE "${PAIR_SERVER_PATTERN:-$pattern}" "$log.srv"; then
            why="no line matching /${PAIR_SERVER_PATTERN:-$pattern}/ from the server"
        elif ! grep -qE "$pattern" "$log.cli"; then
            why="no line matching /$pattern/ from the client"
        fi
    fi
    printf '%s: %d ms\n' "$label" $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
    grep -v '^  provider: ' <<< "$libs"
    if [ -n "$why" ]; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL $label: $why"
        echo "--- server log"; tail -n 25 "$log.srv"
        echo "--- client log"; tail -n 25 "$log.cli"
        return 1
    fi
    grep -hE "${PAIR_SERVER_PATTERN:-$pattern}" "$log.srv" | tail -n 2 | sed 's/^/  srv| /'
    grep -hE "$pattern" "$log.cli" | tail -n 2 | sed 's/^/  cli| /'
    echo "ok $label"
}

# With PAIR_STRACE=1, the last pair ran under strace: checks that each
# side reached /dev/infiniband/uverbsN through the transport that
# OPENVERBS_CMD_MODE asked for (auto: ioctl, which this kernel has).
pair_check_transport() {
    local side f ioctls writes ok=1
    for side in srv cli; do
        f=$pair_last.$side.strace
        ioctls=$(grep -c '^[0-9]* *ioctl([0-9]*</dev/infiniband/uverbs' "$f")
        writes=$(grep -c '^[0-9]* *write([0-9]*</dev/infiniband/uverbs' "$f")
        echo "  $side: $ioctls ioctl() and $writes write() on /dev/infiniband/uverbs*"
        case ${OPENVERBS_CMD_MODE:-auto} in
            write) [ "$ioctls" = 0 ] && [ "$writes" -gt 0 ] || ok=0 ;;
            ioctl) [ "$writes" = 0 ] && [ "$ioctls" -gt 0 ] || ok=0 ;;
            auto) [ "$ioctls" -gt 0 ] || ok=0 ;;
        esac
    done
    if [ $ok = 0 ]; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL: not the ${OPENVERBS_CMD_MODE:-auto} transport"
        return 1
    fi
    echo "ok transport ${OPENVERBS_CMD_MODE:-auto}"
}

# Ends the script: non-zero if any pair failed.
pair_summary() {
    [ $pair_failed = 0 ] || fail "$pair_failed pair(s) failed"
    echo "all pairs passed"
}
