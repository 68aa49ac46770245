#!/bin/bash
# SPDX-License-Identifier: MIT
# Upstream's perftest (Debian's build) on our libibverbs over rxe0, server
# and client, out-of-band exchange over TCP (no rdma_cm):
#     perftest.sh [--cmd-modes] PROGRAM [ARG...]
# e.g. perftest.sh ib_send_bw -c UD.  Few iterations (TCG is slow).  With
# --cmd-modes, instead: three runs with the kernel commands as our library
# picks them (ioctl on this kernel), forced through write() and forced
# through ioctl() (OPENVERBS_CMD_MODE), under strace to show that each
# side used that transport.
#
# perftest needs more than libibverbs: librdmacm (ours, once it is built),
# libibumad (upstream's, from the reference packages: no part of this
# project) and, with BIND_NOW, upstream's provider libraries libmlx5.so.1
# and libefa.so.1 (the system's ibverbs-providers), which import
# upstream's private IBVERBS_PRIVATE_34 interface from libibverbs.  Until
# our libibverbs exports that interface and our librdmacm exists, perftest
# cannot run on our libraries: the test then prints why and exits 77
# (skipped).  After that, any failure fails the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

modes=0
[ "$1" = --cmd-modes ] && { modes=1; shift; }
[ $# -ge 1 ] || fail "usage: perftest.sh [--cmd-modes] PROGRAM [ARG...]"
prog=$1
shift

umad=$(mktemp -d /tmp/umad.XXXXXX)
cp -a "$vm_reference"/usr/lib/x86_64-linux-gnu/libibumad.so.3* "$umad"/
export LD_LIBRARY_PATH=$umad${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# What perftest needs of ours that is not there yet (not for PAIR_SIDE=reference).
if [ "$pair_side" = ours ]; then
    blockers=()
    # grep, not nm: an exported name is in the string table, and nm
    # takes seconds under TCG
    grep -qa 'verbs_register_driver_34' "$vm_build/libverbs/libibverbs.so.1" ||
        blockers+=("our libibverbs does not export upstream's private IBVERBS_PRIVATE_34 interface, which libmlx5.so.1 and libefa.so.1 (linked by perftest, BIND_NOW) import")
    [ -e "$vm_build/librdmacm/librdmacm.so.1" ] ||
        blockers+=("our librdmacm is not built yet (perftest links librdmacm)")
    if [ ${#blockers[@]} -gt 0 ]; then
        printf 'SKIP: %s cannot run on our libraries yet:\n' "$prog"
        printf '  - %s\n' "${blockers[@]}"
        (use_libs ours && exec "$prog" --version) 2>&1 | sed 's/^/  (as it stands: /; s/$/)/'
        exit 77
    fi
fi
heading "$prog starts on the $pair_side libraries"
# (--version prints the version and exits non-zero)
version=$( (use_libs "$pair_side" && exec "$prog" --version) 2>&1)
echo "$version"
[[ $version == Version:* ]] || fail "$prog cannot start"

args=(-d "$RDMAVM_RXE_DEV" -x "$RDMAVM_RXE_GID" -F "$@")
case $prog in
    *_lat) result='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' ;;
    *) result='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' ;;
esac
# not every server prints the results; each prints its test banner
export PAIR_SERVER_PATTERN='^-{20,}'

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
