#!/bin/bash
# SPDX-License-Identifier: MIT
# The vm test 'static': links the static programs on the host (link.sh),
# then runs them in the guest (tests/vm/static.sh), expecting the devices
# of this build's built-in providers (-Dproviders) and no others.
#
#   usage: tests/static/vm.sh BUILDDIR OUTDIR RDMA-VM GUEST-RUN TIMEOUT
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: vm.sh BUILDDIR OUTDIR RDMA-VM GUEST-RUN TIMEOUT" >&2; exit 2; }
build=$1 out=$2 rdma_vm=$3 guest_run=$4 timeout=$5
src=$(cd "$(dirname "$0")/../.." && pwd)

"$src/tests/static/link.sh" "$build" "$out"
read -r -a devices < <(python3 - "$build/meson-info/intro-buildoptions.json" <<'PY'
import json, sys
providers = next(o['value'] for o in json.load(open(sys.argv[1])) if o['name'] == 'providers')
print(' '.join(p + '0' for p in providers))
PY
)
exec "$rdma_vm" --timeout "$timeout" -- "$guest_run" "$src/tests/vm/static.sh" "$(cd "$out" && pwd)" "${devices[@]}"
