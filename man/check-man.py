#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks on the Markdown man pages in man/.

Always: every page has a YAML title block (title, section, header, footer,
date) whose section matches its file name, and a NAME line "a, b - what"
that starts with the page's own name.  man/meson.build reads that line to
install the other names as links, so its shape matters.

--dir: every *.md in that directory is among the pages given, i.e. listed
in man/meson.build and so built and installed.

--symvers/--pending: every function exported by ABI.symvers (default
version, name@@NODE), of every library it lists (libibverbs and
librdmacm), that is implemented, i.e. not listed in the pending file,
must be named in some page's NAME or SYNOPSIS.  An exported _name also
counts as documented by "name" (the public static inline wrapper).

--inline-header: every static inline function a public header defines
is public interface too (librdmacm's rdma_verbs.h helpers are nothing
else) and needs a page, except the names given with --inline-exempt.

--pandoc: every page converts with `pandoc -s -t man` without a warning;
with --groff too, the result also formats without a groff warning (tables
too wide for a terminal, lines that cannot be broken).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

TITLE_KEYS = ('title', 'section', 'header', 'footer', 'date')


def sections(text):
    """{heading: body} for the level-one headings of a page."""
    out, name, in_code = {}, None, False
    for line in text.splitlines():
        if line.startswith('```'):
            in_code = not in_code
        m = not in_code and re.match(r'# (\S.*?)\s*$', line)
        if m:
            name = m.group(1)
            out[name] = ''
        elif name:
            out[name] += line + '\n'
    return out


def check_page(path, errors):
    base = os.path.basename(path)
    m = re.fullmatch(r'(.+)\.(\d)\.md', base)
    if not m:
        errors.append(f'{path}: file name must be NAME.SECTION.md')
        return set()
    page, section = m.groups()
    with open(path, encoding='utf-8') as f:
        text = f.read()
    block = re.match(r'---\n(.*?)\n---\n', text, re.S)
    meta = {}
    if block:
        for line in block.group(1).splitlines():
            key, _, value = line.partition(':')
            meta[key.strip()] = value.strip()
    for key in TITLE_KEYS:
        if not meta.get(key):
            errors.append(f'{path}: title block lacks "{key}"')
    if meta.get('section') and meta['section'] != section:
        errors.append(f'{path}: section {meta["section"]} but file name says {section}')
    secs = sections(text)
    name_line = ' '.join(secs.get('NAME', '').split())
    names_part, dash, desc = name_line.partition(' - ')
    names = [n.strip() for n in names_part.split(',')]
    if not dash or not desc or not all(re.fullmatch(r'[A-Za-z_][\w.]*', n) for n in names):
        errors.append(f'{path}: NAME must read "name[, name...] - description"')
        return set()
    if names[0] != page:
        errors.append(f'{path}: NAME must start with the page name {page}')
    if section == '3' and 'SYNOPSIS' not in secs:
        errors.append(f'{path}: section 3 page without SYNOPSIS')
    words = set(names)
    words.update(re.findall(r'\b[A-Za-z_]\w*\b', secs.get('SYNOPSIS', '')))
    return words


def implemented_exports(symvers, pending):
    with open(pending) as f:
        skip = {l.split('#', 1)[0].strip() for l in f}
    names = set()
    with open(symvers) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if '@@' in line and line not in skip:
                names.add(line.split('@@')[0])
    return names


def header_inlines(path):
    """Names of the static inline functions defined in a C header."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    return set(re.findall(r'\bstatic\s+inline\b[^;{(]*?\b([A-Za-z_]\w*)\s*\(', text))


def convert_page(a, page):
    """The problem converting one page as the build does, or None."""
    cmd = [a.pandoc, '-s', '-t', 'man', '--fail-if-warnings', page]
    if a.prologue:
        cmd += ['--include-before-body', a.prologue]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        return f'{page}: pandoc exit {r.returncode}: {r.stderr.strip()}'
    if a.groff:
        g = subprocess.run([a.groff, '-t', '-man', '-Tutf8', '-ww', '-z'],
                           input=r.stdout, capture_output=True, text=True)
        if g.returncode or g.stderr.strip():
            return f'{page}: groff: {g.stderr.strip()}'
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--symvers')
    ap.add_argument('--pending')
    ap.add_argument('--pandoc')
    ap.add_argument('--groff')
    ap.add_argument('--prologue', help='roff inserted after the title, as in the build')
    ap.add_argument('--inline-header', action='append', default=[],
                    help='public header whose static inline functions need pages')
    ap.add_argument('--inline-exempt', action='append', default=[],
                    help='inline function of those headers that is not interface')
    ap.add_argument('--dir', help='directory whose *.md must all be listed')
    ap.add_argument('pages', nargs='+')
    a = ap.parse_args()
    errors, documented = [], set()
    listed = {os.path.realpath(p) for p in a.pages}
    for f in sorted(os.listdir(a.dir) if a.dir else []):
        if f.endswith('.md') and os.path.realpath(os.path.join(a.dir, f)) not in listed:
            errors.append(f'{f}: not listed in man/meson.build, so never built or installed')
    for page in a.pages:
        documented |= check_page(page, errors)
    if a.symvers:
        for sym in sorted(implemented_exports(a.symvers, a.pending)):
            if sym not in documented and sym.lstrip('_') not in documented:
                errors.append(f'{sym}: exported and implemented, but no man page names it '
                              'in NAME or SYNOPSIS')
    for header in a.inline_header:
        for name in sorted(header_inlines(header) - set(a.inline_exempt)):
            if name not in documented:
                errors.append(f'{name}: public inline function of {os.path.basename(header)}, '
                              'but no man page names it in NAME or SYNOPSIS')
    if a.pandoc:
        # One pandoc start costs far more than the page; run them side by side.
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            for problem in pool.map(lambda page: convert_page(a, page), a.pages):
                if problem:
                    errors.append(problem)
    for e in errors:
        print(e, file=sys.stderr)
    print(f'{len(a.pages)} pages checked, {len(errors)} problems')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
