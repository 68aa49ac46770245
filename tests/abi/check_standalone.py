#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Each public header compiles on its own, warning-free, in one language mode.

Every compile's dependency list must take each RDMA public header from the
include directory under test (never /usr/include/infiniband or a system
rdma_cma.h; kernel UAPI headers in /usr/include/rdma are fine).  In C++ the
functions a header declares must have C linkage.  A #warning (upstream marks
obsolete headers that way) is shown but does not fail.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import abi

STANDARDS = {'c99': ('c', ['-pedantic']), 'c11': ('c', ['-pedantic']),
             'c++11': ('c++', []), 'c++17': ('c++', [])}
FLAGS = ['-Wall', '-Wextra', '-Werror', '-Wno-error=cpp']


def declared_functions(gcc, incdir, header, tmp):
    """Names of the extern functions that including header declares."""
    aux = os.path.join(tmp, 'aux')
    abi.run([gcc, '-fsyntax-only', '-w', '-I', incdir, '-aux-info', aux, '-x', 'c', '-'],
            input=f'#include <{header}>\n')
    names = set()
    with open(aux) as f:
        for line in f:
            m = re.match(r'/\* (.*):\d+:NC \*/ extern .*?(\w+) \((?!\*)', line)
            if m and abi.owns_header(m.group(1), incdir):
                names.add(m.group(2))
    return sorted(names)


def check(a, header):
    """Problems of one header, as a list of strings."""
    lang, extra = STANDARDS[a.std]
    tmp = tempfile.mkdtemp(prefix='abi-hdr-', dir=a.tmp)
    src = os.path.join(tmp, 'probe.' + ('cc' if lang == 'c++' else 'c'))
    text = f'#include <{header}>\n'
    funcs = []
    if lang == 'c++':
        funcs = declared_functions(a.gcc, a.incdir, header, tmp)
        text += '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n'
        text += ''.join(f'void (*abi_ref{i})() = reinterpret_cast<void (*)()>(&{f});\n'
                        for i, f in enumerate(funcs))
    with open(src, 'w') as f:
        f.write(text)
    obj = os.path.join(tmp, 'probe.o')
    cmd = [a.gxx if lang == 'c++' else a.gcc, f'-std={a.std}', *extra, *FLAGS,
           '-I', a.incdir, '-MD', '-MF', obj + '.d', '-c', src, '-o', obj]
    p = subprocess.run(cmd, capture_output=True, text=True)
    out = []
    if p.returncode:
        return [f'{header} ({a.std}): does not compile:\n{p.stderr.rstrip()}']
    if p.stderr.strip():
        print(f'     {header} ({a.std}) warns (not an error):\n{p.stderr.rstrip()}')
    for dep in abi.read_depfile(obj + '.d'):
        if abi.owns_header(dep, a.incdir) is False:
            out.append(f'{header} ({a.std}): took {os.path.realpath(dep)} from outside {a.incdir}')
    if funcs:
        undef = abi.run(['nm', '-u', obj]).stdout.split()
        for sym in sorted(s for s in undef if s.startswith('_Z')):
            out.append(f'{header} ({a.std}): {sym} has C++ linkage (missing extern "C")')
        for f in sorted(set(funcs) - set(undef)):
            out.append(f'{header} ({a.std}): {f} not referenced as a C symbol')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--std', required=True, choices=sorted(STANDARDS))
    ap.add_argument('--incdir', required=True, help='include directory under test')
    ap.add_argument('--gcc', default='gcc')
    ap.add_argument('--gxx', default='g++')
    a = ap.parse_args()
    a.incdir = os.path.realpath(a.incdir)
    report = abi.Report(f'abi-headers-{a.std}')
    if STANDARDS[a.std][0] == 'c++' and not a.gxx:
        print(f'SKIP: no C++ compiler found, cannot check the headers as {a.std}')
        sys.exit(77)
    with tempfile.TemporaryDirectory() as a.tmp, ThreadPoolExecutor() as pool:
        present = [h for h in abi.PUBLIC_HEADERS if os.path.exists(os.path.join(a.incdir, h))]
        for h in sorted(set(abi.PUBLIC_HEADERS) - set(present)):
            report.fail(f'{h}: missing from {a.incdir}')
        for problems in pool.map(lambda h: check(a, h), present):
            for p in problems:
                report.fail(p)
    report.finish(f'{len(present)} headers checked, each alone as {a.std} with '
                  f'{" ".join(STANDARDS[a.std][1] + FLAGS)}.')


if __name__ == '__main__':
    main()
