#!/bin/bash
# SPDX-License-Identifier: MIT
# The devinfo test's host half:
#     host-json-check.sh RDMA-VM [RDMA-VM-ARG...]
# runs the guest (devinfo.sh), which leaves our tools' --json documents
# and the text of the same runs in $OPENVERBS_BUILD_ROOT/devinfo-json,
# then checks them here with devinfo-json.py: a python start costs a
# minute and more under TCG on a busy host, a fraction of a second here.
# Debian's python3, which has python3-jsonschema (./run installs it).
dir=${OPENVERBS_BUILD_ROOT:?}/devinfo-json
rm -rf "$dir"
"$@" || exit
echo "== on the host: --json against its schema and the text"
[ -s "$dir/devinfo.json" ] || { echo "FAIL: the guest left no --json documents in $dir"; exit 1; }
/usr/bin/python3 "$(dirname "$0")/devinfo-json.py" "$OPENVERBS_SOURCE_ROOT/tools/verbs" \
    "$dir/devinfo.json" "$dir/devinfo-v.txt" "$dir/devices.json" "$dir/devices.txt"
