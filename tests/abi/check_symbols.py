#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Exports and version nodes of one built library against ABI.symvers.

Both ways: every export must be listed with the same version and binding
(@@ default, @ compat-only), every listed name must be exported unless it is
pending, and no pending name may be exported.  The version-node graph must
equal ABI.symvers' node lines and upstream's library.  ABI.symvers itself is
checked against upstream's exports (all but the provider-only private node).
A build without the compat layer (--without-compat) must export none of the
compat-only names and is not missing them.
"""
import argparse
import os
import re
import sys

import abi

DEFINITION = re.compile(r'Name: (\S+)')
PARENT = re.compile(r'Parent \d+: (\S+)')


def exports(path, nodes):
    """{name@NODE or name@@NODE or bare name} of defined dynamic symbols;
    the ABS marker symbols ld makes for the version nodes are left out."""
    out = abi.run(['readelf', '--dyn-syms', '--wide', path]).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(':') or f[6] == 'UND':
            continue
        if f[4] not in ('GLOBAL', 'WEAK', 'GNU_UNIQUE'):
            continue
        name = f[7]
        if f[6] == 'ABS' and name in nodes:
            continue  # version-node marker, e.g. IBVERBS_1.0
        syms.add(name)
    return syms


def version_graph(path):
    """(base name, [(node, parent)]) from readelf -V's definition section."""
    out = abi.run(['readelf', '-V', '--wide', path]).stdout
    nodes, base, inside = [], None, False
    for line in out.splitlines():
        if 'Version definition section' in line:
            inside = True
        elif 'Version needs section' in line or 'Version symbols section' in line:
            inside = False
        elif inside and (m := DEFINITION.search(line)):
            if 'Flags: BASE' in line:
                base = m.group(1)
            else:
                nodes.append([m.group(1), None])
        elif inside and (m := PARENT.search(line)) and nodes:
            nodes[-1][1] = m.group(1)
    return base, [tuple(n) for n in nodes]


# Exports newer than the reference release, on the node it already had: the
# provider plugins of that release import them (shared/abi/private34/V56-ADDITIONS.md).
LATER_ADDITIONS = {
    'ibv_cmd_create_cq_ex2@@IBVERBS_PRIVATE_34': 'added in rdma-core 56 (mlx5 imports it)',
    'ibv_wr_opcode_str@@IBVERBS_PRIVATE_34': 'added in rdma-core 56',
}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--symvers', required=True)
    ap.add_argument('--symvers-py', required=True)
    ap.add_argument('--pending', help='not-yet-implemented names (our build only)')
    ap.add_argument('--reference', required=True, help='unpacked upstream root')
    ap.add_argument('--library', required=True, help='soname, e.g. libibverbs.so.1')
    ap.add_argument('--file', help='the built library; absent: not built yet')
    ap.add_argument('--without-compat', action='store_true',
                    help='built with -Dcompat=disabled: no compat-only (name@NODE) export')
    a = ap.parse_args()

    sys.path.insert(0, os.path.dirname(os.path.abspath(a.symvers_py)))
    import symvers
    report = abi.Report(f'abi-symbols {a.library}')
    nodes = symvers.parse(a.symvers).get(a.library)
    if nodes is None:
        sys.exit(f'{a.symvers}: no library {a.library}')
    listed = {f'{n}{"@@" if d else "@"}{node}' for node, _, syms in nodes for n, d in syms}
    pending = symvers.read_pending(a.pending) if a.pending else set()
    graph = [(node, parent) for node, parent, _ in nodes]
    for sym in sorted(pending - listed):
        if re.split('@@?', sym)[-1] in {node for node, _ in graph}:
            report.fail(f'pending.txt lists {sym}, which ABI.symvers does not')
    pending &= listed

    ref_file = abi.find_lib(a.reference, a.library)
    if not ref_file:
        sys.exit(f'upstream {a.library} not found under {a.reference}/usr/lib')
    ref_base, ref_graph = version_graph(ref_file)
    if graph != ref_graph:
        report.fail(f'ABI.symvers node lines {graph} differ from upstream {ref_graph}')
    ref_exports = exports(ref_file, {n for n, _ in ref_graph})
    for sym in sorted(listed - ref_exports - LATER_ADDITIONS.keys()):
        report.fail(f'ABI.symvers lists {sym}, upstream exports no such symbol/version')
    for sym in sorted(listed & LATER_ADDITIONS.keys()):
        report.info(f'{sym}: not in upstream 44, {LATER_ADDITIONS[sym]}')
    for sym in sorted(ref_exports - listed):
        report.fail(f'upstream exports {sym}, missing from ABI.symvers')

    if not a.file:
        missing = listed - pending
        for sym in sorted(missing):
            report.fail(f'{a.library} is not built, but {sym} is not pending')
        report.finish(f'{a.library} is not built yet: all {len(listed)} of its '
                      f'symbols are pending; nodes checked against upstream.'
                      if not missing else '')

    base, built_graph = version_graph(a.file)
    if base != a.library:
        report.fail(f'{a.file}: version base/soname {base}, expected {a.library}')
    if built_graph != graph:
        report.fail(f'{a.file}: version nodes {built_graph}, ABI.symvers/upstream say {graph}')

    # From here on, what this build was meant to export.
    omitted = {sym for sym in listed if '@@' not in sym} if a.without_compat else set()
    listed -= omitted
    built = exports(a.file, {n for n, _ in built_graph})
    for sym in sorted(built & omitted):
        report.fail(f'exported {sym}, but this build has no compat layer')
    for sym in sorted(built - listed):
        bare = re.split('@@?', sym)[0]
        twins = sorted(s for s in listed if re.split('@@?', s)[0] == bare)
        why = f'ABI.symvers has {", ".join(twins)}' if twins else 'not in ABI.symvers'
        report.fail(f'exported {sym}: {why}')
    for sym in sorted((built & pending)):
        report.fail(f'{sym} is exported but still listed in pending.txt: drop it there')
    for sym in sorted(listed - built - pending):
        report.fail(f'{sym} listed in ABI.symvers, not exported (and not pending)')
    report.finish(f'{len(built & listed)} of {len(listed)} symbols exported as listed, '
                  f'{len(pending - built)} pending, {len(omitted)} compat-only left out; '
                  f'{len(graph)} version nodes match.')


if __name__ == '__main__':
    main()
