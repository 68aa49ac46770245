# SPDX-License-Identifier: MIT
"""Our IBVERBS_PRIVATE_34 structures against upstream's, to the byte.

Provider plugins are binaries compiled against upstream's private headers,
so every structure they share with the core must have upstream's layout.
The facts (tests/abi/private34-layouts.txt, from shared/abi/private34/layouts.txt) are pahole's view of
upstream's v44 DWARF; this compiles a probe that includes only our headers
(libverbs/driver.h, compat/plugins/plugins.h and commands.h) with the same
flags, reads its DWARF with the same pahole, and compares.

What is compared, for every type of layouts.txt sections 1-3:
- the size;
- sections 1 and 2 (objects, command buffer, headers) and the kernel
  request/response structs of section 3: every member by upstream's name,
  with its offset, size and bit position.  Anonymous unions and structs are
  flattened (their members are the parent's), named inline ones give
  "outer.inner" names; member type names are not compared (ours may be
  called verbs_list_node where upstream's is list_node: the bytes matter).
  A member of ours that upstream lacks is a difference too.
- the 51 command wrappers of section 3 (FACTS 37): members may be named as
  we like, but the header must be upstream's (same type, offset 0) and the
  core payload, upstream's kernel request struct, must sit at upstream's
  offset with its size (wherever ours nests it).
verbs_ex_private is upstream's private context data, listed for
information only (README "Limits"): skipped, saying so.
"""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abi import Report, run  # noqa: E402

INFO_ONLY = {
    'verbs_ex_private': "upstream's core-private context data (layouts.txt: for information only)",
    'list_head': 'only verbs_ex_private, which plugins never see, holds one',
    'empty': "kern-abi.h's zero-size placeholder: no plugin-visible bytes",
}
# Our names for upstream's where ours differ, each with why; the bytes must
# still be upstream's.
TYPE_ALIASES = {
    'list_node': ('verbs_list_node', 'our list node, same two pointers (driver.h)'),
}
MEMBER_ALIASES = {
    ('verbs_mr', 'mr_type'): ('kind', 'enum verbs_mr_kind: the values of enum ibv_mr_type (driver.h)'),
}
HEADERS = ['driver.h', 'compat/plugins/plugins.h', 'compat/plugins/commands.h']
COMMENT = re.compile(r'/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/\s*$')
CLOSE = re.compile(r'^\s*}\s*(\w+)?\s*((?:\[\d*\])*)\s*;')
SECTION = re.compile(r'^## (\d+)\.')


class Member:
    def __init__(self, name, type_, offset, bit, size, bits):
        self.name, self.type, self.offset, self.bit, self.size, self.bits = \
            name, type_, offset, bit, size, bits

    def where(self):
        pos = f'{self.offset}' if self.bit is None else f'{self.offset}:{self.bit}'
        width = f'{self.size}' if self.bits is None else f'{self.size} ({self.bits} bit)'
        return f'offset {pos} size {width}'

    def key(self):
        return (self.offset, self.bit, self.size, self.bits)


def parse_decl(decl):
    """(name, type, bit-field width) of one member declaration."""
    decl = decl.strip().rstrip(';').strip()
    fp = re.search(r'\(\*\s*(\w+)\)', decl)
    if fp:
        return fp.group(1), decl[:fp.start()].strip(), None
    bits = None
    m = re.search(r':\s*(\d+)$', decl)
    if m:
        bits, decl = int(m.group(1)), decl[:m.start()].strip()
    m = re.search(r'(\w+)((?:\[\d*\])*)$', decl)
    return m.group(1) + m.group(2), decl[:m.start()].strip(), bits


def parse_types(text):
    """{name: (size, [Member], section)} from pahole-format text."""
    types, section = {}, None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        sec = SECTION.match(line)
        if sec:
            section = int(sec.group(1))
        head = re.match(r'^(struct|union) (\w+) \{\s*$', line)
        if not head:
            i += 1
            continue
        name, size = head.group(2), None
        # a stack of open blocks: each collects its members until closed
        stack = [[]]
        i += 1
        while i < len(lines) and lines[i] != '};':
            line = lines[i]
            i += 1
            text_ = line.strip()
            sz = re.match(r'/\* size: (\d+)', text_)
            if sz:
                size = int(sz.group(1))
                continue
            if not text_ or text_.startswith('/*'):
                continue
            if text_.endswith('{'):
                stack.append([])
                continue
            close = CLOSE.match(line)
            comment = COMMENT.search(line)
            if close and comment:
                inner = stack.pop()
                label = close.group(1)
                if label:
                    label += close.group(2)
                    stack[-1].append(Member(label, 'inline', int(comment.group(1)), None,
                                            int(comment.group(3)), None))
                    inner = [Member(f'{label}.{m.name}', m.type, m.offset, m.bit, m.size, m.bits)
                             for m in inner]
                stack[-1].extend(inner)
                continue
            if comment:
                mname, mtype, bits = parse_decl(line[:comment.start()])
                bit = int(comment.group(2)) if comment.group(2) is not None else None
                stack[-1].append(Member(mname, mtype, int(comment.group(1)), bit,
                                        int(comment.group(3)), bits))
        i += 1
        types[name] = (size, stack[0], section)
    return types


def wrapper_table(text):
    """{wrapper: core payload type} from the table heading section 3."""
    table = {}
    for m in re.finditer(r'^#\s+(?:W|EX)\s+\S+\s+struct (\w+)\s+struct (\w+)', text, re.M):
        table[m.group(1)] = m.group(2)
    return table


def compare_members(report, name, want, have):
    have_by_name = {m.name: m for m in have}
    want_names = set()
    for m in want:
        alias = MEMBER_ALIASES.get((name, m.name))
        if alias:
            report.info(f'{name}.{m.name} is our {alias[0]}: {alias[1]}')
        ours = have_by_name.get(alias[0] if alias else m.name)
        want_names.add(alias[0] if alias else m.name)
        if ours is None:
            report.fail(f'{name}: no member {m.name} (upstream: {m.where()})')
        elif ours.key() != m.key():
            report.fail(f'{name}.{m.name}: ours at {ours.where()}, upstream {m.where()}')
    for m in have:
        if m.name not in want_names:
            report.fail(f'{name}: member {m.name} ({m.where()}) that upstream does not have')


def compare_wrapper(report, name, payload, want, have):
    """Header at 0 of upstream's type; the core payload at upstream's place."""
    up_hdr = next(m for m in want if m.name == 'hdr')
    up_core = next(m for m in want if m.name == 'core_payload')
    ours_hdr = [m for m in have if m.offset == 0 and m.type.endswith(up_hdr.type.split()[-1])]
    if not ours_hdr or ours_hdr[0].size != up_hdr.size:
        report.fail(f'{name}: no {up_hdr.type} header of {up_hdr.size} bytes at offset 0')
    ours_core = [m for m in have if m.type.split()[-1] == payload]
    if not ours_core:
        report.fail(f'{name}: no member of type struct {payload} (upstream: core_payload, '
                    f'{up_core.where()})')
    elif ours_core[0].key() != up_core.key():
        report.fail(f'{name}: struct {payload} at {ours_core[0].where()}, upstream {up_core.where()}')


def compile_probe(args, workdir):
    src = os.path.join(workdir, 'probe.c')
    missing = [h for h in HEADERS if not os.path.exists(os.path.join(args.libverbs, h))]
    with open(src, 'w') as f:
        for h in HEADERS:
            if h not in missing:
                f.write(f'#include "{h}"\n')
    obj = os.path.join(workdir, 'probe.o')
    # the flags layouts.txt was made with (pahole 1.24 cannot read atomics
    # unless -gstrict-dwarf)
    run([args.gcc, '-g', '-O0', '-fno-eliminate-unused-debug-types', '-gdwarf-4',
         '-gstrict-dwarf', '-std=gnu11', '-I', args.incdir, '-I', args.builddir,
         '-I', args.libverbs, '-c', src, '-o', obj])
    return obj, missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--layouts', required=True)
    ap.add_argument('--libverbs', required=True, help='our libverbs source directory')
    ap.add_argument('--incdir', required=True)
    ap.add_argument('--builddir', required=True, help='where config.h is')
    ap.add_argument('--gcc', default='gcc')
    ap.add_argument('--pahole', default='pahole')
    ap.add_argument('--perturb', metavar='TYPE.MEMBER',
                    help='self-test: move that upstream member by one byte; passes only if '
                         'the comparison reports exactly that member')
    args = ap.parse_args()
    report = Report('abi-private-layouts')
    report.messages = []
    plain_fail = report.fail

    def fail(msg):
        report.messages.append(msg)
        plain_fail(msg)
    report.fail = fail

    if not os.path.exists(args.layouts):
        report.fail(f'{args.layouts}: the facts are not there')
        report.finish()
    with open(args.layouts) as f:
        facts = f.read()
    upstream = {n: t for n, t in parse_types(facts).items() if t[2] in (1, 2, 3)}
    wrappers = wrapper_table(facts)
    if args.perturb:
        tname, mname = args.perturb.split('.', 1)
        moved = next(m for m in upstream[tname][1] if m.name == mname)
        moved.offset += 1
        report.info(f'self-test: upstream {args.perturb} moved to {moved.where()}')
    with tempfile.TemporaryDirectory() as tmp:
        obj, missing = compile_probe(args, tmp)
        for h in missing:
            report.fail(f'libverbs/{h} does not exist: its types cannot be checked')
        # every named type at once: pahole -C stops at the first missing one
        ours = parse_types(run([args.pahole, obj]).stdout)

    checked = 0
    for name, (size, members, section) in sorted(upstream.items(), key=lambda t: (t[1][2], t[0])):
        if name in INFO_ONLY:
            report.info(f'skipped {name}: {INFO_ONLY[name]}')
            continue
        our_name = name
        if name in TYPE_ALIASES:
            our_name, why = TYPE_ALIASES[name]
            report.info(f'struct {name} is our struct {our_name}: {why}')
        if our_name not in ours:
            report.fail(f'§{section} struct {name}: not defined by our headers')
            continue
        checked += 1
        have_size, have = ours[our_name][0], ours[our_name][1]
        if have_size != size:
            report.fail(f'§{section} struct {name}: {have_size} bytes, upstream {size}')
        if name in wrappers:
            compare_wrapper(report, name, wrappers[name], members, have)
        else:
            compare_members(report, name, members, have)
    summary = (f'{checked} of {len(upstream)} types compared '
               f'({len(wrappers)} command wrappers by header and core payload)')
    if args.perturb:
        finish_selftest(report, args.perturb, summary)
    report.finish(summary)


def finish_selftest(report, perturbed, summary):
    """The comparison must have caught the moved member (whatever else)."""
    caught = any(msg.startswith(perturbed + ':') for msg in report.messages)
    print(f'self-test: the moved {perturbed} was {"" if caught else "NOT "}reported ({summary})')
    sys.exit(0 if caught else 1)


if __name__ == '__main__':
    main()
