#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2317  # the parts are called through $parts
# `./run demo`: what the real-kernel guest offers, shown inside rdma-vm:
#     tests/vm/rdma-vm tests/vm/demo.sh
# Each part is a function named in `parts`; later ones (ibv_devinfo on our
# library, an RC ping-pong on rxe0, rping over rdma_cm) join the list.
. "$(dirname "$0")/lib.sh"

devices() {
    heading "RDMA devices (rdma dev)"
    rdma dev
    heading "their ports and netdevs (rdma link)"
    rdma link
    heading "device nodes (ls -l /dev/infiniband)"
    ls -l /dev/infiniband
}

parts=(devices)
status=0
for part in "${parts[@]}"; do
    "$part" || { echo "demo: $part failed"; status=1; }
done
exit $status
