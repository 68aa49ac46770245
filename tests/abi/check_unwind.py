#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every exported function of a library has unwind information (.eh_frame).

pthread_cancel() unwinds the cancelled thread's stack from the
cancellation point (a read() inside ibv_get_cq_event, rdma_get_cm_event,
rpoll...) up through our frames to the application's.  A frame without
unwind information ends that walk: glibc then still runs the cleanup
handlers of plain C code, but silently skips C++ destructors and the
cleanups of code built with -fexceptions (tried on x86-64 glibc 2.36).  So a
build that saves its ~30 KB of unwind tables (-fno-asynchronous-unwind-tables
-fno-unwind-tables) breaks such programs; this check fails such a build.
"""
import argparse
import re
import subprocess
import sys

FDE = re.compile(r'\sFDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)')


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('library')
    args = ap.parse_args()

    # Only .eh_frame counts: the unwinder never reads .debug_frame (which
    # -g builds carry, and strip removes).
    dump = run(['readelf', '--debug-dump=frames', '-W', args.library])
    eh_frame = ''.join(re.findall(r'Contents of the \.eh_frame section:\n(.*?)(?=\nContents of the |\Z)',
                                  dump, re.S))
    ranges = sorted((int(lo, 16), int(hi, 16)) for lo, hi in FDE.findall(eh_frame))
    functions = {}
    for line in run(['nm', '-D', '--defined-only', args.library]).splitlines():
        addr, kind, name = line.split()
        if kind in 'Tt':
            functions.setdefault(int(addr, 16), name)
    if not functions:
        sys.exit(f'{args.library}: no exported functions found (nm -D): not a library of ours?')

    uncovered = [name for addr, name in sorted(functions.items())
                 if not any(lo <= addr < hi for lo, hi in ranges)]
    for name in uncovered:
        print(f'{args.library}: no unwind information for {name}')
    print(f'{args.library}: {len(functions) - len(uncovered)} of {len(functions)} exported functions '
          f'covered by {len(ranges)} FDEs')
    return 1 if uncovered else 0


if __name__ == '__main__':
    sys.exit(main())
