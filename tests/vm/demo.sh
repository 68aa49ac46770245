#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2317  # the parts are called through $parts
# `./run demo`: what the real-kernel guest offers, shown inside rdma-vm:
#     tests/vm/rdma-vm tests/vm/demo.sh
# Each part is a function named in `parts`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

devices() {
    heading "RDMA devices (rdma dev)"
    rdma dev
    heading "their ports and netdevs (rdma link)"
    rdma link
    heading "device nodes (ls -l /dev/infiniband)"
    ls -l /dev/infiniband
}

devinfo() {
    heading "our ibv_devinfo on our libibverbs (the loader's log proves which library)"
    VM_TOOLS=ours run_on ours bash -c 'echo "ibv_devinfo is $(type -P ibv_devinfo)"; ibv_devinfo -d "$1"' - "$RDMAVM_RXE_DEV"
}

rc_pingpong() {
    PAIR_TOOLS=ours pair "our ibv_rc_pingpong over rxe0, both sides on our libibverbs" \
        '[0-9]+ bytes in [0-9.]+ seconds' \
        ibv_rc_pingpong -d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -n 100 -c -- \
        ibv_rc_pingpong -d "$RDMAVM_RXE_DEV" -g "$RDMAVM_RXE_GID" -n 100 -c 127.0.0.1
}

rdma_cm_ping() {
    PAIR_WAIT=cm PAIR_TOOLS=ours pair "our rping over rdma_cm on rxe0, both sides on our librdmacm and libibverbs" \
        'ping data: rdma-ping-9' \
        rping -s -a "$RDMAVM_RXE_IP" -C 10 -v -V -- rping -c -a "$RDMAVM_RXE_IP" -C 10 -v -V
}

parts=(devices devinfo rc_pingpong rdma_cm_ping)
status=0
for part in "${parts[@]}"; do
    "$part" || { echo "demo: $part failed"; status=1; }
done
exit $status
