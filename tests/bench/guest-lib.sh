# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the in-guest halves of tests/bench/run.sh that run a server
# and a client on one side's libraries (connect-guest.sh, rsocket-guest.sh):
# proof of which libibverbs/librdmacm each process used.  The caller
# declares libdirs=([ours]=DIRS [upstream]=DIRS), DIRS ':'-separated.

# Whether path $2 lies in one of side $1's library directories.
from_side() {
    local dir dirs
    # shellcheck disable=SC2154  # libdirs: the caller's
    IFS=: read -ra dirs <<< "${libdirs[$1]}"
    for dir in "${dirs[@]}"; do
        [ "${2%/*}" = "$(readlink -f "$dir")" ] && return 0
    done
    return 1
}
# The library $2 that the running process $1 mapped.
mapped_lib() {
    local line
    while read -r line; do
        [[ $line =~ (/[^ ]*/$2\.so[.0-9]*)$ ]] && { readlink -f "${BASH_REMATCH[1]}"; return 0; }
    done < "/proc/$1/maps"
    return 1
}
# The library $1 that a finished client loaded, from the loader's own log
# (LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld).
traced_lib() { sed -n "s|.*calling init: \(.*/$1\.so[.0-9]*\)$|\1|p" /tmp/ld.* | head -n 1 | xargs -r readlink -f; }
# check_libs SIDE WHAT LOOKUP...: exits 2 unless both libraries that
# LOOKUP... LIB names lie in SIDE's directories.
check_libs() {
    local side=$1 what=$2 lib path
    shift 2
    for lib in libibverbs librdmacm; do
        path=$("$@" "$lib") || path="(not mapped)"
        [ -n "$path" ] || path="(not loaded)"
        if ! from_side "$side" "$path"; then
            echo "${0##*/}: $side's $what used $lib $path" >&2
            exit 2
        fi
    done
}
cm_listening() { rdma res show cm_id 2> /dev/null | grep -q 'state LISTEN'; }
