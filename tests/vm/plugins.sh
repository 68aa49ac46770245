#!/bin/bash
# SPDX-License-Identifier: MIT
# "Our core + upstream's provider" (issue 10): Debian's own rxe and siw
# plugins, of release REL (v44: Debian 12's, the reference; v56: Debian
# 13's, reference56), drive rxe0 and siw0 on our libibverbs, our built-in
# rxe and siw off (lib.sh's plugin mode, VM_PLUGINS=REL).  Several checks
# per guest boot:
#     plugins.sh REL rxe [C-TEST...]   upstream's ibv_devices/ibv_devinfo
#         identical to upstream alone (devinfo.sh), ibv_rc_pingpong
#         (pingpong.sh), then each C test on ours (their upstream runs are
#         the ordinary vm tests'; a test that removes rxe0 goes last)
#     plugins.sh REL rxe --v56-qp-ex PROG [C-TEST...]   also v56-qp-ex.c, on
#         our core and on upstream's v44 core, both with the REL plugins
#     plugins.sh REL siw [C-TEST...]   the C tests, then upstream's
#         rdmacm-utils over siw0 on our librdmacm (rdmacm-utils.sh siw ours:
#         rping, ucmatose, rdma_server/rdma_client, cmtime)
# Every run's loader log shows the libibverbs and the plugin files it
# loaded, and fails unless they are the intended ones (lib.sh check_loaded).
#     plugins.sh REL DEV ARGS... -- REL DEV ARGS...   several such runs in
#         one guest (a boot costs 10-15 s of CI time), each in its own shell
#         (lib.sh fixes the release when sourced); fails if any failed.
#         A run whose core-verbs removed rxe0 leaves it re-added, with its
#         RoCE v2 GID back at $RDMAVM_RXE_GID, for the next.
here=$(dirname "$0")
if [[ " $* " == *" -- "* ]]; then
    rxe_gids=/sys/class/infiniband/$RDMAVM_RXE_DEV/ports/1/gids
    rxe_gid=$(cat "$rxe_gids/$RDMAVM_RXE_GID")
    # rxe fills its GID table asynchronously
    rxe_back() { [ "$(cat "$rxe_gids/$RDMAVM_RXE_GID" 2> /dev/null)" = "$rxe_gid" ]; }
    runs=0 failed_runs=0 group=()
    for arg in "$@" --; do
        if [ "$arg" != -- ]; then group+=("$arg"); continue; fi
        runs=$((runs + 1))
        if [ ! -e "$rxe_gids" ]; then
            echo "plugins.sh: re-adding $RDMAVM_RXE_DEV for the next run"
            rdma link add "$RDMAVM_RXE_DEV" type rxe netdev "$RDMAVM_RXE_NETDEV"
            for ((i = 0; i < 50; i++)); do rxe_back && break; sleep 0.1; done
            rxe_back || { echo "FAIL: $RDMAVM_RXE_DEV's GID $RDMAVM_RXE_GID is not $rxe_gid after re-adding it"; exit 1; }
        fi
        bash "$0" "${group[@]}" || failed_runs=$((failed_runs + 1))
        group=()
    done
    echo "plugins.sh: $failed_runs of $runs runs failed"
    [ $failed_runs = 0 ]
    exit
fi
export VM_PLUGINS=$1
. "$here/lib.sh"
part=$2
shift 2

failed=()
# (each step's seconds: what CI time the plugin runs cost, step by step)
step() {
    local label=$1 start=$SECONDS
    shift
    heading "[$VM_PLUGINS plugins] $label"
    "$@" || failed+=("$label")
    echo "step took $((SECONDS - start)) s: $label"
}

heading "plugin mode $VM_PLUGINS: OPENVERBS_DISABLE_PROVIDERS=rxe,siw, RDMAV_DRIVERS on ours = $(use_plugins ours && echo "$RDMAV_DRIVERS")"
case $part in
    rxe)
        step "ibv_devices/ibv_devinfo identical to upstream alone" bash "$here/devinfo.sh"
        # rc: plain, with events, with the ibv_wr_* API (the plugin's
        # own send functions), both.  Not uc, ud, srq (~80 s of CI time
        # a release): uc makes the same provider calls as rc, and
        # core-verbs.c (below) takes UD (address handles, also from a
        # completion), SRQ receives and CQ events through the plugin.
        step "ibv_rc_pingpong" bash "$here/pingpong.sh" rc ;;
    siw) ;;
    *) fail "usage: plugins.sh v44|v56 rxe|siw [C-TEST...]" ;;
esac
if [ "${1:-}" = --v56-qp-ex ]; then
    step "${2##*/}: upstream's v44 core with the $VM_PLUGINS plugins" \
        env VM_REFERENCE_PLUGINS="$VM_PLUGINS" bash -c '. "$1/lib.sh" && run_on reference "$2"' _ "$here" "$2"
    step "${2##*/}: our core with the $VM_PLUGINS plugins" run_on ours "$2"
    shift 2
fi
for prog in "$@"; do
    step "${prog##*/} on our core" run_on ours "$prog"
done
if [ "$part" = siw ]; then
    step "siw0 through rdma_cm, upstream's rdmacm-utils" bash "$here/rdmacm-utils.sh" siw ours
fi

heading "[$VM_PLUGINS plugins] summary"
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} step(s) failed: $(IFS=,; echo "${failed[*]}")"
echo "ok: every step passed with the $VM_PLUGINS plugins on our core"
