#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every object of our build took the RDMA public headers from our include/.

Reads the header dependencies ninja recorded for each compiled object: a
system /usr/include/infiniband or rdma_cma.h (say from an installed
libibverbs-dev) must never stand in for ours.
"""
import argparse
import os

import abi


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--ninja', default='ninja')
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--incdir', required=True, help="the source tree's include/")
    a = ap.parse_args()
    report = abi.Report('abi-build-includes')
    out = abi.run([a.ninja, '-C', a.builddir, '-t', 'deps']).stdout
    objects = headers = 0
    obj = None
    for line in out.splitlines():
        if not line.startswith(' ') and ': #deps' in line:
            obj, objects = line.split(':')[0], objects + 1
        elif line.strip() and obj:
            path = os.path.join(a.builddir, line.strip())
            verdict = abi.owns_header(path, a.incdir)
            headers += verdict is True
            if verdict is False:
                report.fail(f'{obj}: compiled with {os.path.realpath(path)}, '
                            f'not the header under {a.incdir}')
    if not objects:
        report.fail(f'ninja recorded no header dependencies in {a.builddir}')
    report.finish(f'{objects} objects, {headers} uses of our public headers, '
                  'none from elsewhere.')


if __name__ == '__main__':
    main()
