#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Our `meson install` lays out what rdma-core 44's packages ship.

The build is staged with stage.sh and its file list is compared with the
file lists of upstream's packages (kept by tests/reference/fetch-lib.sh),
after two normalisations that are not differences of ours:
  - our prefix is mapped to /usr, where Debian installs;
  - Debian's packaging gzips man pages after the build (dh_compress), so
    `.gz` is dropped from upstream's man page names and link targets.
Libraries and pkg-config files are compared with their symbolic-link
targets; man pages by name only (which page a name links to is our own
organisation of the text).  Every difference is printed; the test fails on
each one that no line of the intended-differences file explains, and on
every line of that file that no longer explains anything.

The shared libraries' sonames and the pkg-config files' Name, Description,
URL, Version, Libs and Cflags must equal upstream's too.  Libs.private and
Requires.private are printed, not compared: ours list what our objects need.
"""
import argparse
import fnmatch
import os
import re
import shlex
import subprocess
import sys

MAN_DIR = '/usr/share/man/'
PC_FIELDS = ('Name', 'Description', 'URL', 'Version', 'Libs', 'Cflags')


def stage(stage_sh, build, dest):
    run = subprocess.run([stage_sh, build, dest], stdout=subprocess.PIPE, text=True)
    if run.returncode:
        sys.exit(f'FAIL {stage_sh} {build} {dest} failed (its errors are above)')
    out = run.stdout
    env = {}
    for line in out.splitlines():
        name, _, value = line.removeprefix('export ').partition('=')
        env[name] = shlex.split(value)[0]
    return env


def entry(path, link_target):
    """How a file list names one file: man pages by name, links with target."""
    if link_target is None or path.startswith(MAN_DIR):
        return path
    return f'{path} -> {link_target}'


def our_entries(root, prefix):
    """Every staged non-directory, as installed under /usr instead of prefix."""
    entries = set()
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(top, name)
            if os.path.isdir(full) and not os.path.islink(full):
                continue
            path = '/' + os.path.relpath(full, root)
            if path.startswith(prefix + '/'):
                path = '/usr' + path[len(prefix):]
            target = os.readlink(full) if os.path.islink(full) else None
            entries.add(entry(path, target))
    return entries


def reference_entries(lists, packages):
    entries = set()
    for pkg in packages:
        path = os.path.join(lists, pkg + '.list')
        if not os.path.exists(path):
            sys.exit(f'FAIL no file list {path}: the reference was fetched by an older '
                     'fetch.sh; fetch it again (ninja reference.stamp)')
        with open(path) as f:
            for line in f.read().splitlines():
                path, _, target = line.partition(' -> ')
                if path.startswith(MAN_DIR):
                    path = path.removesuffix('.gz')
                entries.add(entry(path, target.removesuffix('.gz') or None))
    return entries


def read_intended(path):
    """[(sign, pattern, reason, line number)]; malformed lines are errors."""
    rules, errors = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            m = re.fullmatch(r'([-+])\s+(.+?)\s+#\s*(.*)', line)
            if not m or not m.group(3):
                errors.append(f'{path}:{number}: want "- PATTERN  # reason" or '
                              f'"+ PATTERN  # reason": {line}')
                continue
            rules.append((m.group(1), m.group(2), m.group(3), f'{os.path.basename(path)}:{number}'))
    return rules, errors


def compare_lists(ours, reference, rules):
    failures = 0
    used = set()
    diff = [('-', e) for e in reference - ours] + [('+', e) for e in ours - reference]
    print(f'file list: {len(ours)} ours, {len(reference)} upstream, {len(diff)} differences '
          '("-" upstream only, "+" ours only)')
    for sign, e in sorted(diff, key=lambda d: (d[1], d[0])):
        rule = next((r for r in rules if r[0] == sign and fnmatch.fnmatchcase(e, r[1])), None)
        if rule:
            used.add(rule[3])
            print(f'  {sign} {e}    [intended: {rule[2]}]')
        else:
            failures += 1
            print(f'  {sign} {e}    UNEXPECTED')
    for sign, pattern, reason, number in rules:
        if number not in used:
            failures += 1
            print(f'FAIL intended difference at {number} matches nothing any more '
                  f'(remove it): {sign} {pattern}')
    return failures


def soname(path):
    dyn = subprocess.run(['readelf', '-d', '-W', path], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    m = re.search(r'\(SONAME\).*\[(.*)\]', dyn)
    return m.group(1) if m else None


def compare_sonames(libdir, ref_libdir, names):
    failures = 0
    for name in names:
        ours, theirs = soname(os.path.join(libdir, name)), soname(os.path.join(ref_libdir, name))
        ok = ours == theirs
        failures += not ok
        print(f'{"ok" if ok else "FAIL"} soname of {name}: {ours} (ours) vs {theirs} (upstream)')
    return failures


def pc_fields(path, prefix):
    """The .pc file's fields with its variables expanded, prefix mapped to /usr."""
    variables, fields = {}, {}
    expand = lambda s: re.sub(r'\$\{(\w+)\}', lambda m: variables.get(m.group(1), ''), s)
    with open(path) as f:
        for line in f.read().splitlines():
            m = re.fullmatch(r'(\w+)=(.*)', line)
            if m:
                variables[m.group(1)] = expand(m.group(2).strip())
                continue
            m = re.fullmatch(r'([\w.]+):\s*(.*)', line)
            if m:
                fields[m.group(1)] = ' '.join(expand(m.group(2)).split())
    for name, value in fields.items():
        fields[name] = re.sub(re.escape(prefix) + r'(?=/|$| )', '/usr', value) if prefix else value
    return fields


def compare_pc(pcdir, ref_pcdir, prefix, names):
    failures = 0
    for name in names:
        ours = pc_fields(os.path.join(pcdir, name + '.pc'), prefix)
        theirs = pc_fields(os.path.join(ref_pcdir, name + '.pc'), '')
        for field in PC_FIELDS:
            ok = ours.get(field) == theirs.get(field)
            failures += not ok
            print(f'{"ok" if ok else "FAIL"} {name}.pc {field}: {ours.get(field)!r}'
                  + ('' if ok else f' (ours) vs {theirs.get(field)!r} (upstream)'))
        for field in ('Requires.private', 'Libs.private'):
            print(f'   {name}.pc {field}: ours {ours.get(field, "")!r}, '
                  f'upstream {theirs.get(field, "")!r}')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--stage-sh', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--dest', required=True, help='staging directory (emptied)')
    ap.add_argument('--reference', required=True, help='fetch.sh DEST (with root/ and lists/)')
    ap.add_argument('--intended', nargs='+', required=True,
                    help='files of intended differences (the tools have their own)')
    ap.add_argument('--packages', nargs='+', required=True)
    ap.add_argument('--libraries', nargs='+', required=True, help='sonames to compare')
    ap.add_argument('--pkgconfig', nargs='+', required=True, help='.pc names to compare')
    ap.add_argument('--without-man', metavar='REASON',
                    help='this build installs no man pages: leave them out of the comparison')
    args = ap.parse_args()

    env = stage(args.stage_sh, args.build, args.dest)
    prefix = os.path.relpath(env['STAGE_PREFIX'], env['STAGE_ROOT'])
    prefix = '' if prefix == '.' else '/' + prefix
    rules, failures = [], []
    for path in args.intended:
        file_rules, file_failures = read_intended(path)
        rules += file_rules
        failures += file_failures
    for e in failures:
        print('FAIL', e)
    failures = len(failures)

    ours = our_entries(env['STAGE_ROOT'], prefix)
    reference = reference_entries(os.path.join(args.reference, 'lists'), args.packages)
    if args.without_man:
        print(f'man pages not compared: {args.without_man}')
        ours = {e for e in ours if not e.startswith(MAN_DIR)}
        reference = {e for e in reference if not e.startswith(MAN_DIR)}
        rules = [r for r in rules if not r[1].startswith(MAN_DIR)]
    failures += compare_lists(ours, reference, rules)

    libdir = env['STAGE_LIBDIR']
    ref_libdir = os.path.join(args.reference, 'root', 'usr',
                              os.path.relpath(libdir, env['STAGE_PREFIX']))
    failures += compare_sonames(libdir, ref_libdir, args.libraries)
    failures += compare_pc(os.path.join(libdir, 'pkgconfig'), os.path.join(ref_libdir, 'pkgconfig'),
                           prefix, args.pkgconfig)

    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
