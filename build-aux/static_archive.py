#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make a library's static archive (libibverbs.a, librdmacm.a) from its objects.

The objects are linked into one relocatable object first (cc -r): inside
it, the library's own references are resolved, so every name the library
does not export can then be made local (objcopy --keep-global-symbols,
the names ABI.symvers gives the library as its default versions).  The
shared library's version script hides the same internal names; here that
keeps them (verbs_*, rxe_*, the IBVERBS_1.0 twins, ...) out of the
application's namespace, where they could collide with its own.
objcopy and ar are the compiler's own (cc -print-prog-name), so a cross
or musl compiler gets its target's binutils without being told.

usage: static_archive.py --symvers F --pending F --library SONAME
                         OUTPUT INPUT.a -- CC...
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from symvers import parse, read_pending  # noqa: E402


def exported_names(nodes, pending):
    return sorted({name for node, _, syms in nodes for name, default in syms
                   if default and f'{name}@@{node}' not in pending})


def binutil(cc, name):
    found = subprocess.run(cc + ['-print-prog-name=' + name], capture_output=True,
                           text=True, check=True).stdout.strip()
    return found or name


def run(cmd):
    result = subprocess.run(cmd)
    if result.returncode:
        sys.exit(f'static_archive.py: failed ({result.returncode}): {" ".join(cmd)}')


def main():
    argv = sys.argv[1:]
    if '--' not in argv:
        sys.exit(__doc__)
    split = argv.index('--')
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--symvers', required=True)
    ap.add_argument('--pending')
    ap.add_argument('--library', required=True)
    ap.add_argument('output')
    ap.add_argument('input')
    a = ap.parse_args(argv[:split])
    cc = argv[split + 1:]

    libs = parse(a.symvers)
    if a.library not in libs:
        sys.exit(f'{a.symvers}: no library {a.library}')
    # One object named like the library: what `ar t` and linker maps show.
    stem = os.path.basename(a.output).removesuffix('.a')
    obj = os.path.join(os.path.dirname(a.output), stem + '.o')
    keep = obj + '.exports'
    with open(keep, 'w') as f:
        f.write(''.join(n + '\n' for n in exported_names(libs[a.library], read_pending(a.pending))))
    # Objects compiled for the shared library's link-time optimisation
    # also carry GCC's intermediate code and its early debug information:
    # the archive takes their machine code only, as the rest is bound to
    # this compiler's version.
    run(cc + ['-fno-lto', '-r', '-nostdlib', '-o', obj,
              '-Wl,--whole-archive', a.input, '-Wl,--no-whole-archive'])
    run([binutil(cc, 'objcopy'), '--keep-global-symbols=' + keep,
         '--remove-section=.gnu.lto_*', '--remove-section=.gnu.debuglto_*', obj])
    if os.path.exists(a.output):
        os.unlink(a.output)
    run([binutil(cc, 'ar'), 'rcsD', a.output, obj])
    os.unlink(obj)
    os.unlink(keep)


if __name__ == '__main__':
    main()
