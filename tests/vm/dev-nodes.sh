#!/bin/bash
# SPDX-License-Identifier: MIT
# The guest has a uverbs node per device (rxe0, siw0) and rdma_cm.
# Arguments name more nodes to expect (the should_fail self-test adds one
# that does not exist).
. "$(dirname "$0")/lib.sh"

ls -l /dev/infiniband
for n in uverbs0 uverbs1 rdma_cm "$@"; do
    [ -c "/dev/infiniband/$n" ] || fail "/dev/infiniband/$n is not a character device"
    echo "ok /dev/infiniband/$n"
done
# each uverbs node belongs to one of the two devices
read -r dev0 < /sys/class/infiniband_verbs/uverbs0/ibdev
read -r dev1 < /sys/class/infiniband_verbs/uverbs1/ibdev
[ "$dev0 $dev1" = "rxe0 siw0" ] || [ "$dev0 $dev1" = "siw0 rxe0" ] ||
    fail "uverbs0 and uverbs1 belong to $dev0 and $dev1, not rxe0 and siw0"
echo "ok uverbs0 is $dev0, uverbs1 is $dev1"
