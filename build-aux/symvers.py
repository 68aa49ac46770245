#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read ABI.symvers and write a GNU ld version script for one library.

ABI.symvers is the single list of what openverbs exports.  Names listed in
the pending file (not implemented yet) are left out of the script, so that
the link, run with --no-undefined-version, fails for any listed name that
has no body.  Compat-only names (name@NODE) get their binding from .symver
directives in the compat sources; the script only has to define NODE, and
must not put its catch-all `local: *` there: ld matches a name@NODE
definition against NODE's patterns only, so that would hide it, while
listing the name there instead would capture the default twin's plain
definition.  The catch-all goes to the first node without compat names
(it still hides every unversioned name no node lists).
"""
import argparse
import sys


def parse(path):
    """Return {library: [(node, parent, [(name, default)])]} in file order."""
    libs, lib, node = {}, None, None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if words[0] == 'library' and len(words) == 2:
                lib, node = libs.setdefault(words[1], []), None
            elif words[0] == 'node' and len(words) in (2, 3) and lib is not None:
                node = (words[1], words[2] if len(words) == 3 else None, [])
                lib.append(node)
            elif '@' in line and len(words) == 1 and node is not None:
                default = '@@' in line
                name, version = line.split('@@' if default else '@')
                if version != node[0]:
                    sys.exit(f'{path}:{lineno}: {line} is listed under node {node[0]}')
                node[2].append((name, default))
            else:
                sys.exit(f'{path}:{lineno}: cannot parse: {raw.rstrip()}')
    return libs


def read_pending(path):
    if not path:
        return set()
    with open(path) as f:
        return {l.split('#', 1)[0].strip() for l in f} - {''}


def version_script(nodes, pending):
    out = []
    catch_all = next((i for i, (_, _, syms) in enumerate(nodes)
                      if all(default for _, default in syms)), 0)
    for i, (node, parent, syms) in enumerate(nodes):
        names = [n for n, default in syms if default and f'{n}@@{node}' not in pending]
        body = ''.join(f'\t\t{n};\n' for n in names)
        if i == catch_all:
            body += '\tlocal:\n\t\t*;\n'
        glob = '\tglobal:\n' if names else ''
        out.append(f'{node} {{\n{glob}{body}}}{" " + parent if parent else ""};\n')
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--library', required=True)
    ap.add_argument('--pending')
    ap.add_argument('symvers')
    ap.add_argument('output')
    a = ap.parse_args()
    libs = parse(a.symvers)
    if a.library not in libs:
        sys.exit(f'{a.symvers}: no library {a.library}')
    with open(a.output, 'w') as f:
        f.write(version_script(libs[a.library], read_pending(a.pending)))


if __name__ == '__main__':
    main()
