# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Server/client pairs of upstream's test programs (ibv_*_pingpong,
# perftest) on our libraries, inside the rdma-vm guest:
#     . "$(dirname "$0")/pair.sh"       (after lib.sh)
#     pair LABEL PATTERN SERVER_CMD... -- CLIENT_CMD...
# Both sides run on our libraries for up to $pair_timeout s, the
# client once the server listens on the out-of-band TCP port.  The loader
# logs what both load (lib.sh's traced_run), and the pair fails unless
# every libibverbs/librdmacm they loaded is ours (check_loaded: one check
# for the pair).  Under TCG a process costs 0.1 s idle and over 1 s on a
# busy host: the common path of a pair starts no process but the two
# roles, the rdma_cm listener checks and a readlink for a library path
# new to the script.  A pair passes when
# both exit 0 and the logs have a line matching PATTERN (the programs'
# own result line: a pair that exits 0 without moving data does not
# pass; PAIR_SERVER_PATTERN, if set, is the server's instead).
# PAIR_WAIT=cm waits for an rdma_cm listener instead of the TCP port,
# PAIR_WAIT=cm+tcp for both (iWARP: the kernel's TCP listener comes after
# the rdma_cm id shows LISTEN),
# PAIR_WAIT=udp for a UDP socket bound to the port (udpong),
# PAIR_WAIT=log:REGEX for a server line matching REGEX (a multicast
# receiver has joined), for up to PAIR_LISTEN_SECONDS.
# PAIR_SERVER_STAYS=1: the server never ends by itself (cmtime -b); it
# is stopped once the client has ended, and only whether it was still
# running is judged (its buffered output dies with it).
# OPENVERBS_CMD_MODE, when set, reaches both sides.  Servers still alive
# at exit are killed.  PAIR_SIDE (lib.sh's sides) picks the libraries of
# both: reference runs both on upstream's, to try a test script itself;
# verbs is our libibverbs under upstream's librdmacm, rdmacm our
# librdmacm on upstream's libibverbs.  PAIR_SERVER_SIDE and
# PAIR_CLIENT_SIDE pick one role's (a server on upstream's libraries and
# a client on ours: wire compatibility); each role is then checked alone.
# PAIR_TOOLS (both roles), PAIR_SERVER_TOOLS, PAIR_CLIENT_TOOLS: whose
# program a role runs, ours (build/tools) or upstream's: the first word of
# the command that names one becomes its absolute path, which the log
# shows; unset, the command runs as given (upstream's first on PATH).
# PAIR_KNOWN_RACE=NAME: a race outside the libraries (the kernel's, or
# the program's own)
# (race_NAME_*) may hit this pair; when a failed pair shows exactly its
# signature (the client's log and the kernel's own evidence), the pair
# runs once more, saying so.  Any other failure, or the race twice,
# fails.  A server still running PAIR_SERVER_GRACE (10) s after its
# client failed is stopped.

pair_timeout=${PAIR_TIMEOUT:-60}
pair_side=${PAIR_SIDE:-ours}
pair_port=18515
pair_failed=0
pair_count=0
pair_servers=()
pair_logs=$(mktemp -d /tmp/pair.XXXXXX)
# a FIFO nobody writes: `read -t` on it sleeps without a process
mkfifo "$pair_logs/nap"
exec {pair_nap_fd}<> "$pair_logs/nap"
nap() { read -rt "$1" -u "$pair_nap_fd" _ || true; }

# Sets tree to process $1 and its descendants, from the kernel's list of
# each thread's children (no pgrep process per level).
process_tree() {
    local i=0 list children
    tree=("$1")
    while ((i < ${#tree[@]})); do
        for list in /proc/"${tree[i]}"/task/*/children; do
            children=()
            # one line without a newline: read's status says nothing
            read -r -a children 2> /dev/null < "$list"
            tree+=("${children[@]}")
        done
        i=$((i + 1))
    done
}
kill_tree() {
    process_tree "$1"
    kill -KILL "${tree[@]}" 2> /dev/null
    pair_cm_unsure=1
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
# rdma_cm servers listen on an rdma_cm id, not on a TCP port: the kernel's
# resource list shows it (PAIR_WAIT=cm).
cm_listening() { [[ $(rdma res show cm_id 2> /dev/null) == *'state LISTEN'* ]]; }
# Whether a process of the tree of $1 has /dev/infiniband/rdma_cm open:
# only then is the listener list worth a process, as the slow part of a
# server's start under TCG (loading, the library's set-up) is over.
cm_opened() {
    local pid fd
    process_tree "$1"
    for pid in "${tree[@]}"; do
        for fd in /proc/"$pid"/fd/*; do
            [ "$fd" -ef /dev/infiniband/rdma_cm ] && return 0
        done
    done
    return 1
}
# Whether an earlier server may still hold an rdma_cm listener: before the
# first pair, and after one was killed (init reaps it once its killed
# parent is gone, maybe after our wait); a server that ended by itself had
# closed its ids before its parent could reap it.
pair_cm_unsure=1
wait_cm_free() {
    local i
    for ((i = 0; i < 60; i++)); do
        cm_listening || return 0
        nap 0.1
    done
    return 1
}
# PAIR_WAIT=udp: a UDP socket is bound to port $1 (/proc/net/udp{,6}).
udp_bound() {
    local want f local_addr
    printf -v want ':%04X' "$1"
    for f in /proc/net/udp /proc/net/udp6; do
        while read -r _ local_addr _; do
            [[ $local_addr == *"$want" ]] && return 0
        done < "$f"
    done
    return 1
}
# Whether file $1 has a line matching the extended regular expression $2
# (bash's =~ is regcomp's ERE, as grep -E's).  Files are read with
# mapfile, a few system calls a file; read makes some for every line.
logged() {
    local lines line
    mapfile -t lines 2> /dev/null < "$1" || return 1
    for line in "${lines[@]}"; do
        [[ $line =~ $2 ]] && return 0
    done
    return 1
}
# The last two lines of file $1 matching $2, each after prefix $3.
print_matches() {
    local lines line last=()
    mapfile -t lines < "$1"
    for line in "${lines[@]}"; do
        [[ $line =~ $2 ]] && last=("${last[@]: -1}" "$line")
    done
    for line in "${last[@]}"; do echo "$3$line"; done
}

# Waits for the server (process $2, its log $1) as PAIR_WAIT says, for up
# to PAIR_LISTEN_SECONDS (30; a server under valgrind on a busy host
# needs more); not for one that has ended already.
server_ready() {
    kill -0 "$2" 2> /dev/null || { echo "the server ended before it was ready"; return 2; }
    case ${PAIR_WAIT:-tcp} in
        cm) cm_opened "$2" && cm_listening ;;
        cm+tcp) cm_opened "$2" && cm_listening && listening $pair_port ;;
        log:*) logged "$1" "${PAIR_WAIT#log:}" ;;
        udp) udp_bound $pair_port ;;
        *) listening $pair_port ;;
    esac
}
wait_server() {
    local end=$((SECONDS + ${PAIR_LISTEN_SECONDS:-30})) rc
    while ((SECONDS < end)); do
        server_ready "$@"
        rc=$?
        [ $rc = 1 ] || return $rc
        nap 0.1
    done
    return 1
}
wait_tcp_free() {
    local i
    for ((i = 0; i < 100; i++)); do listening "$1" || return 0; nap 0.05; done
    return 1
}

# role_start SIDE TRACE LOG COMMAND...: COMMAND on SIDE's libraries,
# traced, its output in LOG, in the background (role_pid).  A fork of this
# shell (role_watchdog) stops it after $pair_timeout s as timeout -k 3
# would: TERM to its process tree, KILL 3 s later, and marks
# LOG.timeout.  timeout's own process would cost a second on a busy host.
role_start() {
    local side=$1 trace=$2 log=$3 i pid
    shift 3
    ( use_libs "$side" && traced_run "$trace" "$@" ) > "$log" 2>&1 &
    role_pid=$!
    (
        nap "$pair_timeout"
        : > "$log.timeout"
        process_tree "$role_pid"
        kill -TERM "${tree[@]}" 2> /dev/null
        for ((i = 0; i < 30; i++)); do
            for pid in "${tree[@]}"; do kill -0 "$pid" 2> /dev/null && break; done ||
                exit 0
            nap 0.1
        done
        kill -KILL "${tree[@]}" 2> /dev/null
    ) &
    role_watchdog=$!
    pair_servers+=("$role_pid" "$role_watchdog")
}
# role_wait PID WATCHDOG LOG: the exit status of role PID, 124 (as
# timeout's) if its watchdog stopped it.
role_wait() {
    local status=0
    { wait "$1"; } 2> /dev/null || status=$?   # no "Killed" from a stopped role
    if [ -e "$3.timeout" ]; then
        # its KILL, 3 s on, for a program that outlived the TERM
        { wait "$2"; } 2> /dev/null
        return 124
    fi
    kill "$2" 2> /dev/null
    { wait "$2"; } 2> /dev/null
    return $status
}

# Known kernel races (PAIR_KNOWN_RACE=NAME): race_NAME_arm readies the
# kernel's own evidence before each attempt (false: it cannot, and the
# race will not be recognised); race_NAME_seen LOG succeeds, printing the
# race and its cause, when the failed attempt whose logs start with LOG
# shows it.
# pair_resolve_tool ARRAY TOOLS: ARRAY's first word naming a program of
# TOOLS (lib.sh's tools_dir_of) becomes that program's path.
pair_resolve_tool() {
    local -n words=$1
    local dir i
    dir=$(tools_dir_of "$2") || return
    for i in "${!words[@]}"; do
        [ -x "$dir/${words[i]}" ] && { words[i]=$dir/${words[i]}; return 0; }
    done
    echo "pair: no program from $dir in: ${words[*]}"
    return 1
}

pair_tracing=/sys/kernel/tracing

# siw_mpa_extra_data, kernel 6.1 siw (siw_cm.c: siw_proc_mpareply ->
# siw_recv_mpa_rr): a server that sends right after ESTABLISHED
# (ucmatose) can have its first data frame reach the client in the same
# socket read as the MPA reply; the client's siw then refuses the reply
# as carrying extra data (-EPROTO), its connect fails with -EINVAL and
# the server's QP goes to error (ucmatose: "failed to post sends: 107")
# or the server waits for a client that is gone.  rsocket servers send
# their first credit update at once, so they hit it too.  Whichever libraries
# run above.  No kernel message marks that path, so a return probe on
# siw_recv_mpa_rr records its result.
race_siw_mpa_extra_data_arm() {
    [ -e $pair_tracing/trace ] || mount -t tracefs nodev $pair_tracing || return
    if [ ! -e $pair_tracing/events/kprobes/siw_mpa_rr ]; then
        # shellcheck disable=SC2016  # $retval is the probe's, not ours
        echo 'r:siw_mpa_rr siw_recv_mpa_rr ret=$retval:s32' >> $pair_tracing/kprobe_events &&
            echo 1 > $pair_tracing/events/kprobes/siw_mpa_rr/enable || return
    fi
    : > $pair_tracing/trace
}
# The client says so as ucmatose does, or as the rsocket programs do
# (perror of rconnect's EINVAL).
race_siw_mpa_extra_data_seen() {
    grep -qE 'RDMA_CM_EVENT_CONNECT_ERROR, error: -22$|^r?connect: Invalid argument$' "$1.cli" &&
        grep -qE 'siw_mpa_rr: .* ret=-71$' $pair_tracing/trace || return 1
    echo "kernel race in siw: the MPA reply and the first data frame came in one socket read (siw_recv_mpa_rr returned -EPROTO, 'extra data'), so the client's connect failed with -EINVAL"
}

# perftest_relisten, perftest's -R mode: the server listens on its port
# for the control connection, then again for the data QPs; a client that
# connects its data QP between the two finds no listener (REJECTED with
# reason 8, invalid service ID, or an UNREACHABLE SIDR for UD), and
# upstream's client then crashes in its error path, on upstream's
# libraries as on ours.  The client's log is the evidence.
race_perftest_relisten_arm() { :; }
race_perftest_relisten_seen() {
    grep -qE 'Event: RDMA_CM_EVENT_(REJECTED; error: 8|UNREACHABLE)' "$1.cli" || return 1
    echo "race in perftest -R: its client's data connect came while the server was between its two listens (no listener: $(grep -ohE 'RDMA_CM_EVENT_[A-Z]+(; error: [0-9-]+)?' "$1.cli" | head -1))"
}

# Readies the evidence of race $PAIR_KNOWN_RACE, if any; false when it
# cannot be recognised.
pair_race_arm() {
    [ -n "${PAIR_KNOWN_RACE:-}" ] || return 1
    "race_${PAIR_KNOWN_RACE}_arm" && return 0
    echo "pair.sh: cannot watch for the known race $PAIR_KNOWN_RACE: a failure will not be retried"
    return 1
}

# pair_attempt LOG SERVER_ARRAY CLIENT_ARRAY (the arrays' names), inside
# pair() (its label, pattern and sides): one run of the pair; sets
# pair_why (empty when it passed), pair_why_exit (1: both ran on the
# right libraries and only an exit status failed) and writes what each
# role loaded to LOG.libs.
pair_attempt() {
    local log=$1 sp sw sr=0 cr=0 t0 srv_ld=$1.ld cli_ld=$1.ld stopped=0 server_pattern late libs_ok
    local -n srv_cmd=$2 cli_cmd=$3
    pair_why='' pair_why_exit=0
    t0=$EPOCHREALTIME
    # one loader check for the pair when both roles run on one side
    [ "$srv_side" = "$cli_side" ] || srv_ld=$log.ld.srv cli_ld=$log.ld.cli
    if [ "${PAIR_WAIT:-tcp}" = tcp ]; then
        wait_tcp_free $pair_port || { echo "port $pair_port still busy"; ss -ltnp; }
    elif [ $pair_cm_unsure = 1 ]; then
        wait_cm_free || echo "an rdma_cm id still listens"
        pair_cm_unsure=0
    fi
    : > "$log.srv"
    role_start "$srv_side" "$srv_ld" "$log.srv" "${srv_cmd[@]}"
    sp=$role_pid sw=$role_watchdog
    if wait_server "$log.srv" "$sp"; then
        role_start "$cli_side" "$cli_ld" "$log.cli" "${cli_cmd[@]}"
        role_wait "$role_pid" "$role_watchdog" "$log.cli" || cr=$?
    else
        cr=1 pair_why="the server never got ready (PAIR_WAIT=${PAIR_WAIT:-tcp port $pair_port})"
        kill_tree "$sp"
    fi
    if [ -n "${PAIR_SERVER_STAYS:-}" ] && [ -z "$pair_why" ]; then
        kill -0 "$sp" 2> /dev/null && stopped=1 && kill_tree "$sp"
    elif [ "$cr" != 0 ]; then
        # a server would only wait for its failed client until it times out
        late=$((SECONDS + ${PAIR_SERVER_GRACE:-10}))
        while kill -0 "$sp" 2> /dev/null && ((SECONDS < late)); do nap 0.2; done
        kill -0 "$sp" 2> /dev/null &&
            echo "the server still ran ${PAIR_SERVER_GRACE:-10} s after its client failed: stopped" &&
            kill_tree "$sp"
    fi
    role_wait "$sp" "$sw" "$log.srv" || sr=$?
    if [ $stopped = 1 ]; then
        echo "the server ran until the client ended, as expected; stopped"
        sr=0
    elif [ -n "${PAIR_SERVER_STAYS:-}" ] && [ -z "$pair_why" ]; then
        pair_why="the server (PAIR_SERVER_STAYS) had ended before the client"
    fi
    # in this shell, not in $(...): check_loaded resolves each path once
    if [ "$srv_ld" = "$cli_ld" ]; then
        check_loaded "$srv_side" "$srv_ld" > "$log.libs" ||
            pair_why="not (only) the $srv_side libraries were loaded"
    else
        { echo "server:"; check_loaded "$srv_side" "$srv_ld"; libs_ok=$?
          echo "client:"; check_loaded "$cli_side" "$cli_ld"; } > "$log.libs" ||
            pair_why="the client did not load (only) the $cli_side libraries"
        [ "$libs_ok" = 0 ] ||
            pair_why="the server did not load (only) the $srv_side libraries"
    fi
    server_pattern=${PAIR_SERVER_PATTERN:-$pattern}
    [ $stopped = 0 ] || server_pattern=
    if [ -z "$pair_why" ]; then
        if [ $sr != 0 ] || [ $cr != 0 ]; then
            pair_why="server exit $sr, client exit $cr" pair_why_exit=1
        elif [ -n "$server_pattern" ] && ! logged "$log.srv" "$server_pattern"; then
            pair_why="no line matching /$server_pattern/ from the server"
        elif ! logged "$log.cli" "$pattern"; then
            pair_why="no line matching /$pattern/ from the client"
        fi
    fi
    printf '%s: %d ms\n' "$label" $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
}

pair() {
    local label=$1 pattern=$2 srv=() cli=() log race armed=0 lines line
    local srv_side=${PAIR_SERVER_SIDE:-${PAIR_SIDE:-$pair_side}}
    local cli_side=${PAIR_CLIENT_SIDE:-${PAIR_SIDE:-$pair_side}}
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
    shift
    cli=("$@")
    local srv_tools=${PAIR_SERVER_TOOLS:-${PAIR_TOOLS:-}} cli_tools=${PAIR_CLIENT_TOOLS:-${PAIR_TOOLS:-}}
    if { [ -n "$srv_tools" ] && ! pair_resolve_tool srv "$srv_tools"; } ||
        { [ -n "$cli_tools" ] && ! pair_resolve_tool cli "$cli_tools"; }; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL $label: a role's program is missing"
        return 1
    fi
    # numbered: a label may come again, its traces must not mix
    log=$pair_logs/$((++pair_count)).${label//[^A-Za-z0-9_.-]/_}${OPENVERBS_CMD_MODE:+.$OPENVERBS_CMD_MODE}
    pair_last=$log
    heading "$label${OPENVERBS_CMD_MODE:+ (OPENVERBS_CMD_MODE=$OPENVERBS_CMD_MODE)}"
    if [ "$srv_side" = "$cli_side" ]; then
        echo "server: ${srv[*]}"
        echo "client: ${cli[*]}"
    else
        echo "server: ${srv[*]} (on the $srv_side libraries)"
        echo "client: ${cli[*]} (on the $cli_side libraries)"
    fi
    if [ -n "${PAIR_STRACE:-}" ]; then
        srv=(strace -f -y -qq -e 'trace=ioctl,write' -o "$log.srv.strace" "${srv[@]}")
        cli=(strace -f -y -qq -e 'trace=ioctl,write' -o "$log.cli.strace" "${cli[@]}")
    fi
    pair_race_arm && armed=1
    pair_attempt "$log" srv cli
    if [ "$armed" = 1 ] && [ "$pair_why_exit" = 1 ] && race=$("race_${PAIR_KNOWN_RACE}_seen" "$log"); then
        echo "retrying $label once: $pair_why, with the signature of a known $race"
        echo "--- server log (first attempt)"; tail -n 10 "$log.srv"
        echo "--- client log (first attempt)"; tail -n 10 "$log.cli"
        rm -f "$log".ld* "$log".*.timeout
        pair_race_arm
        pair_attempt "$log" srv cli
        pair_why=${pair_why:+$pair_why (on the retry after the known race)}
    fi
    mapfile -t lines < "$log.libs"
    for line in "${lines[@]}"; do
        [[ $line == '  provider: '* ]] || echo "$line"
    done
    if [ -n "$pair_why" ]; then
        pair_failed=$((pair_failed + 1))
        echo "FAIL $label: $pair_why"
        echo "--- server log"; tail -n 25 "$log.srv"
        echo "--- client log"; tail -n 25 "$log.cli"
        return 1
    fi
    [ -n "${PAIR_SERVER_STAYS:-}" ] ||
        print_matches "$log.srv" "${PAIR_SERVER_PATTERN:-$pattern}" '  srv| '
    print_matches "$log.cli" "$pattern" '  cli| '
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
