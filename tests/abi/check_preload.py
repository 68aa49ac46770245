#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""librspreload.so: exactly the intended exports, as a module.

The dynamic exports must be exactly upstream v44's 26 libc names plus the
four that v64 added (accept4, dup, fcntl64, sendfile64), all unversioned;
upstream's own v44 module (the reference) must export exactly the 26, so the
list here cannot drift from the oracle.  Ours has no SONAME, needs
librdmacm.so.1, and imports from librdmacm only r* calls of <rdma/rsocket.h>
at RDMACM_1.0 (so it runs on any librdmacm.so.1).  __fxstat stays unexported,
as upstream's.
"""
import argparse
import re

import abi

V44 = set('accept bind close connect dup2 fcntl getpeername getsockname getsockopt '
          'listen poll read readv recv recvfrom recvmsg select send sendfile sendmsg '
          'sendto setsockopt shutdown socket write writev'.split())
V64_ADDED = {'accept4', 'dup', 'fcntl64', 'sendfile64'}
RSOCKET_CALLS = set('rsocket rbind rlisten raccept rconnect rshutdown rclose rrecv rrecvfrom '
                    'rrecvmsg rsend rsendto rsendmsg rread rreadv rwrite rwritev rpoll rselect '
                    'rgetpeername rgetsockname rsetsockopt rgetsockopt rfcntl riomap riounmap '
                    'riowrite'.split())


def dyn_syms(path):
    """(defined exports, undefined imports) as written by readelf (name[@VER])."""
    defined, undefined = set(), set()
    for line in abi.run(['readelf', '--dyn-syms', '--wide', path]).stdout.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(':') or f[4] not in ('GLOBAL', 'WEAK'):
            continue
        (undefined if f[6] == 'UND' else defined).add(f[7])
    return defined, undefined


def dynamic(path):
    out = abi.run(['readelf', '-d', '-W', path]).stdout
    return re.findall(r'\(NEEDED\).*\[(.*)\]', out), re.findall(r'\(SONAME\).*\[(.*)\]', out)


def check(report, label, path, want):
    defined, undefined = dyn_syms(path)
    for name in sorted(defined - want):
        report.fail(f'{label}: exports {name}, which is not intended')
    for name in sorted(want - defined):
        report.fail(f'{label}: does not export {name}')
    report.info(f'{label}: {len(defined)} exports')
    return defined, undefined


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--ours', required=True)
    ap.add_argument('--reference', required=True, help="upstream's librspreload.so")
    args = ap.parse_args()
    report = abi.Report('abi-preload')

    check(report, 'upstream', args.reference, V44)
    _, imports = check(report, 'ours', args.ours, V44 | V64_ADDED)
    needed, soname = dynamic(args.ours)
    if soname:
        report.fail(f'ours has a SONAME {soname[0]}: a module has none')
    if 'librdmacm.so.1' not in needed:
        report.fail(f'ours does not need librdmacm.so.1 (needs {needed})')
    cm_imports = {name for name in imports if name.endswith('@RDMACM_1.0')}
    for name in sorted(cm_imports):
        if name.split('@')[0] not in RSOCKET_CALLS:
            report.fail(f'ours imports {name}, not an r* call of rdma/rsocket.h')
    for name in sorted(imports - cm_imports):
        if name.split('@')[0] in RSOCKET_CALLS:
            report.fail(f'ours imports {name} without RDMACM_1.0')
    report.info(f'ours imports {len(cm_imports)} r* calls at RDMACM_1.0')
    report.finish()


if __name__ == '__main__':
    main()
