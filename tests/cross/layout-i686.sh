#!/bin/bash
# The abi suite's layout check (tests/abi/check_api.py layout), compiled
# for i686: every public struct, union, enum and typedef of our headers
# against rdma-core 44.0-2's i386 -dev packages, both seen by
# i686-linux-gnu-gcc.  32-bit layouts differ from x86_64's (pointers, the
# 4-byte alignment of 64-bit members), and the x86_64 run cannot see them.
#
#   usage: tests/cross/layout-i686.sh SOURCE_ROOT DEPS GCC
# Exits 77 (skipped) with the reason when the i386 packages or the
# compiler are not to be had.
set -euo pipefail
src=$1 deps=$2 gcc=$3

if ! command -v "$gcc" > /dev/null; then
    echo "skipped: no $gcc (Debian's gcc-i686-linux-gnu)"
    exit 77
fi
if ! log=$("$src/tests/cross/fetch-deps.sh" i386-reference "$deps/i386-reference" 2>&1); then
    printf '%s\n' "$log" | tail -n 5
    echo "skipped: rdma-core 44.0-2's i386 packages (libibverbs-dev:i386, librdmacm-dev:i386) could not be fetched"
    exit 77
fi
exec python3 "$src/tests/abi/check_api.py" layout --ours "$src/include" \
    --reference "$deps/i386-reference/root" --gcc "$gcc"
