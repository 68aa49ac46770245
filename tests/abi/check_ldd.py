#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Upstream's programs and libraries resolve every import against ours.

What `ldd -r` does: the dynamic loader traces each consumer with immediate
binding (LD_TRACE_LOADED_OBJECTS, LD_BIND_NOW, LD_WARN) and our library
directories first in LD_LIBRARY_PATH.  Each consumer must load our
libibverbs.so.1 (the host also has Debian's: the trace proves which one was
used) and librdmacm.so.1 (ours once built, upstream's until then), and must
have no unresolved symbol or version of ours beyond the pending names.
Consumers are the ELF files of the unpacked packages that need libibverbs or
librdmacm, Debian's provider plugins included: they import the private
IBVERBS_PRIVATE_34 interface, which ours exports for them.
"""
import argparse
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

import abi

OURS = ('libibverbs.so.1', 'librdmacm.so.1')
LOADED = re.compile(r'\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$')
UNDEFINED = re.compile(r'\s*undefined symbol: ([^,\s]+)(?:, version (\S+))?\s+\((.*)\)')
NO_VERSION = re.compile(r"version `(\S+)' not found \(required by (.*)\)")


def is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


def imports(path):
    """(needed sonames, {name@VERSION} of versioned imports)."""
    needed = re.findall(r'\(NEEDED\).*\[(.*)\]', abi.run(['readelf', '-d', '-W', path]).stdout)
    syms = set()
    for line in abi.run(['readelf', '--dyn-syms', '-W', path]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == 'UND' and '@' in f[7]:
            syms.add(f[7])
    return needed, syms


def consumers(root):
    found = {}
    for top in ('usr/bin', 'usr/lib'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for fn in sorted(files):
                path = os.path.join(d, fn)
                if os.path.isfile(path) and is_elf(path):
                    found.setdefault(os.path.realpath(path), path)
    return [real for real, path in sorted(found.items(), key=lambda kv: kv[1])
            if set(imports(real)[0]) & set(OURS)]


def interpreter(path):
    m = re.search(r'program interpreter: (.*?)\]', abi.run(['readelf', '-l', '-W', path]).stdout)
    return m.group(1) if m else '/lib64/ld-linux-x86-64.so.2'


def trace(rtld, path, libpath):
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'LD_LIBRARY_PATH': libpath,
           'LD_TRACE_LOADED_OBJECTS': '1', 'LD_BIND_NOW': '1', 'LD_WARN': '1'}
    p = abi.run([rtld, path], check=False, env=env)
    return p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--symvers', required=True)
    ap.add_argument('--symvers-py', required=True)
    ap.add_argument('--pending', help='not-yet-implemented names (our build only)')
    ap.add_argument('--reference', required=True, help='unpacked upstream root')
    ap.add_argument('--libibverbs', help='our libibverbs')
    ap.add_argument('--librdmacm', help='our librdmacm; absent: use upstream\'s')
    a = ap.parse_args()

    if not a.libibverbs:
        sys.exit('abi-ldd: no libibverbs.so.1 to check (not in -Dabi_libdir?)')
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.symvers_py)))
    import symvers
    report = abi.Report('abi-ldd')
    libs = symvers.parse(a.symvers)
    listed = {f'{n}@{node}' for nodes in libs.values() for node, _, syms in nodes
              for n, _ in syms}
    ours_nodes = {node for nodes in libs.values() for node, _, _ in nodes}
    pending = {re.sub('@@', '@', s) for s in symvers.read_pending(a.pending)} if a.pending else set()

    ref_libdir = os.path.dirname(abi.find_lib(a.reference, 'libibverbs.so.1'))
    expect = {'libibverbs.so.1': os.path.realpath(a.libibverbs),
              'librdmacm.so.1': os.path.realpath(a.librdmacm or
                                                  os.path.join(ref_libdir, 'librdmacm.so.1'))}
    if not a.librdmacm:
        report.info('librdmacm.so.1 is not built yet: consumers load upstream\'s from '
                    f'{ref_libdir}')
    dirs = [os.path.dirname(os.path.abspath(a.libibverbs))]
    if a.librdmacm:
        dirs.append(os.path.dirname(os.path.abspath(a.librdmacm)))
    libpath = ':'.join(dirs + [ref_libdir])

    targets = consumers(a.reference)
    rtld = interpreter(targets[0]) if targets else None
    with ThreadPoolExecutor() as pool:
        traces = list(pool.map(lambda t: trace(rtld, t, libpath), targets))

    totals = {'pending': set(), 'foreign': set(), 'missing': set()}
    for path, out in zip(targets, traces):
        before = report.failures
        loaded, waiting = judge(report, path, out, expect, listed, ours_nodes, pending, totals)
        print(f'{"ok " if report.failures == before else "BAD"} {os.path.basename(path)}: '
              + ', '.join(f'{lib} => {loaded[lib]}' for lib in OURS if lib in loaded)
              + (f'; {waiting} imports pending' if waiting else ''))
    if totals['foreign']:
        report.info('unresolved imports of other libraries, not checked: '
                    f'{" ".join(sorted(totals["foreign"]))}; not on this host: '
                    f'{" ".join(sorted(totals["missing"])) or "-"}')
    report.finish(f'{len(targets)} consumers resolved against {expect["libibverbs.so.1"]}; '
                  f'{len(totals["pending"])} distinct imports still pending.')


def judge(report, path, out, expect, listed, ours_nodes, pending, totals):
    """Check one loader trace; returns ({soname: path loaded}, pending count)."""
    name, real = os.path.basename(path), os.path.realpath(path)
    loaded, waiting = {}, 0
    for line in out.splitlines():
        if m := UNDEFINED.match(line):
            sym, version, who = m.groups()
            if os.path.realpath(who) != real:
                continue          # another object's imports: checked on its own
            ours = version in ours_nodes if version else any(
                s.split('@')[0] == sym for s in listed)
            if not ours:
                totals['foreign'].add(f'{sym}@{version}' if version else sym)
            elif f'{sym}@{version}' in pending:
                waiting += 1
                totals['pending'].add(f'{sym}@{version}')
            else:
                lib = OURS[0] if (version or 'IBVERBS').startswith('IBVERBS') else OURS[1]
                report.fail(f'{name}: undefined symbol {sym}@{version} in {expect[lib]}')
        elif m := NO_VERSION.search(line):
            if m.group(1) in ours_nodes:
                report.fail(f'{name}: version {m.group(1)} not found (required by {m.group(2)})')
        elif m := LOADED.match(line):
            loaded[m.group(1)] = m.group(2)
    for lib in OURS:
        got = loaded.get(lib)
        if got is not None and (got == 'not found' or os.path.realpath(got) != expect[lib]):
            report.fail(f'{name}: {lib} => {got}, expected {expect[lib]}')
    if OURS[0] not in loaded:
        report.fail(f'{name}: libibverbs.so.1 was not loaded at all:\n{out}')
    totals['missing'] |= {lib for lib, got in loaded.items() if got == 'not found'}
    return loaded, waiting

if __name__ == '__main__':
    main()
