#!/bin/bash
# SPDX-License-Identifier: MIT
# The vm suite's C tests built with ASan+UBSan (build-san/, ./run test
# vm-asan) against our libraries built the same way, on the real kernel:
#     sanitized.sh PROGRAM...
# Each runs once, on our libraries only (run_on ours): upstream's
# libibverbs is not instrumented, and a program of ours run on it would
# make ASan judge memory it cannot see (on-both.sh's reference runs stay
# in the vm suite).  A test passes when the program passes and no
# sanitizer wrote a report: ASan (use after free, overflows, double
# free), LeakSanitizer at exit (every allocation of the library that a
# program's teardown should have released) and UBSan, which stops at
# the first finding (-fno-sanitize-recover=all, ./run).
# Memory the kernel maps into the process (rxe/siw queues, doorbells) is
# not ASan's: it only checks accesses through the heap, stack and
# globals, so those mappings need no suppression.
. "$(dirname "$0")/lib.sh"

reports=$(mktemp -d /tmp/sanitized.XXXXXX)
# LeakSanitizer stops the world with ptrace; root in the guest may.
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/report:abort_on_error=0:print_summary=1"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$reports/report"
failed=()
for prog in "$@"; do
    heading "${prog##*/} with ASan+UBSan on our libraries"
    start=$SECONDS
    status=0
    run_on ours "$prog" || status=$?
    found=("$reports"/report.*)
    if [ -e "${found[0]}" ]; then
        cat "${found[@]}"
        rm -f "${found[@]}"
        failed+=("${prog##*/} (sanitizer report)")
    elif [ $status != 0 ]; then
        failed+=("${prog##*/} (exit $status)")
    fi
    echo "${prog##*/}: exit $status, $((SECONDS - start)) s"
done
[ ${#failed[@]} = 0 ] || fail "${failed[*]}"
echo "ok $# programs clean under ASan+UBSan"
