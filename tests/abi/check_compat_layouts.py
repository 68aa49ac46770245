#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The IBVERBS_1.0 compat layer's private structs against upstream's.

compat-1.0-layouts.txt (section 1) is pahole's view of the 1.0-era structs
in upstream's compat object: old binaries were compiled against them, so
they are ABI even though no header ships them.  This compiles our private
header (libverbs/compat/v1_0/compat_1_0.h) with debug info and compares,
struct by struct, the size and each top-level member's name, offset and
size, in order.
"""
import argparse
import os
import re
import tempfile

import abi
import check_api

MEMBER = re.compile(r'^(.*?);\s*/\*\s*(\d+)\s+(\d+)\s*\*/\s*$')


def member_name(decl):
    m = re.search(r'\(\*\s*(\w+)\)\s*\(', decl)        # function pointer
    if m:
        return m.group(1)
    return re.sub(r'\[.*\]$', '', decl.split()[-1]).lstrip('*')


def read_facts(path):
    """{struct name: (size, [(member, offset, size)])} of section 1."""
    structs, cur, depth = {}, None, 0
    with open(path) as f:
        for line in f:
            if line.startswith('## 2.'):
                break
            if cur is None:
                m = re.match(r'struct (\w+) \{', line)
                if m:
                    cur, depth = structs.setdefault(m.group(1), [None, []]), 1
                continue
            text = line.strip()
            m = MEMBER.match(text)
            if text.startswith('}') and depth == 2 and m:      # end of a nested member
                cur[1].append((member_name(m.group(1)), int(m.group(2)), int(m.group(3))))
            elif depth == 1 and m and '{' not in text:
                cur[1].append((member_name(m.group(1)), int(m.group(2)), int(m.group(3))))
            if (s := re.search(r'/\* size: (\d+),', text)) and depth == 1:
                cur[0] = int(s.group(1))
            depth += text.count('{') - text.count('}')
            if depth == 0:
                cur = None
    return {k: (v[0], v[1]) for k, v in structs.items()}


class NoSide:
    """Layout wants to know which headers are public: none are here."""
    def public(self, path):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--facts', required=True)
    ap.add_argument('--header', required=True, help='compat_1_0.h')
    ap.add_argument('--incdir', required=True, help='our public include directory')
    ap.add_argument('--gcc', default='gcc')
    a = ap.parse_args()
    report = abi.Report('abi-compat-1.0-layouts')
    facts = read_facts(a.facts)
    if len(facts) != 12:
        report.fail(f'{a.facts}: {len(facts)} structs in section 1, expected 12')
    with tempfile.TemporaryDirectory(prefix='abi-compat-') as tmp:
        obj = os.path.join(tmp, 'probe.o')
        src = os.path.join(tmp, 'probe.c')
        with open(src, 'w') as f:
            f.write(f'#include "{os.path.abspath(a.header)}"\n')
        abi.run([a.gcc, '-std=gnu11', '-D_GNU_SOURCE', '-I', a.incdir, '-g', '-O0', '-w',
                 '-fno-eliminate-unused-debug-types', '-c', '-o', obj, src])
        ours = check_api.Layout(NoSide(), obj).records
    for name, (size, members) in sorted(facts.items()):
        rec = ours.get(f'struct {name}')
        if rec is None:
            report.fail(f'struct {name}: not defined by {a.header}')
            continue
        if rec['size'] != size:
            report.fail(f'struct {name}: size {rec["size"]} (ours) vs {size} (upstream)')
        got = [(m['name'], m['offset'], m['size']) for m in rec['members']
               if '.' not in m['name']]
        if got != members:
            report.fail(f'struct {name}: members (name, offset, size)\n'
                        f'       ours:     {got}\n       upstream: {members}')
    report.finish(f'{len(facts)} structs compared: sizes, member names, offsets and sizes')


if __name__ == '__main__':
    main()
