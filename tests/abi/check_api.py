#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The public headers under test against upstream's, as the compiler sees them.

  layout      every struct/union (size, alignment, each member's name, offset,
              size and type), enum (size, constants) and typedef, read from the
              DWARF of a probe that includes every public header
  macros      every macro: object-like ones compared by the value the compiler
              computes (integer with its type, string, float), by expansion when
              they are not expressions; function-like ones by name
  prototypes  every function declared or defined (gcc -aux-info), parameter
              names dropped

Only what originates in a public header counts (on either side); the other
side is searched in full, so a type that our header re-exports from a kernel
UAPI header still matches.  "ours" is the include directory under test.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import abi


class Side:
    def __init__(self, label, incdir, gcc, tmp):
        self.label, self.incdir, self.gcc = label, os.path.realpath(incdir), gcc
        self.tmp = os.path.join(tmp, label)
        os.makedirs(self.tmp)
        self.headers = []

    def compiles_alone(self, header):
        p = subprocess.run([self.gcc, '-std=gnu11', '-fsyntax-only', '-w', '-I', self.incdir,
                            '-x', 'c', '-'], input=f'#include <{header}>\n',
                           capture_output=True, text=True)
        return p.returncode == 0, p.stderr

    def public(self, path):
        """The public header path names, if it is one of the probed headers."""
        real = os.path.realpath(path)
        rel = os.path.relpath(real, self.incdir)
        return rel if rel in self.headers else None

    def probe(self, extra=''):
        return ''.join(f'#include <{h}>\n' for h in self.headers) + extra

    def compile(self, report, name, source, flags, check=True):
        src = os.path.join(self.tmp, name + '.c')
        with open(src, 'w') as f:
            f.write(source)
        cmd = [self.gcc, '-std=gnu11', '-I', self.incdir, '-MD', '-MF', src + '.d',
               *flags, src]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=self.tmp)
        if check and p.returncode:
            sys.exit(f'{self.label}: probe failed to compile: {" ".join(cmd)}\n{p.stderr}')
        if os.path.exists(src + '.d'):
            abi.check_provenance(report, src + '.d', self.incdir, f'{self.label} probe')
        return p, src


def select_headers(report, ours, theirs):
    """Probe only headers that exist and compile on both sides; a header that
    does not is a failure of its own, the rest is still compared."""
    allowed = set(abi.PUBLIC_HEADERS + abi.PROVIDER_HEADERS)
    if os.path.isdir('/usr/include/rdma'):   # kernel UAPI (an -Dabi_includedir=/usr/include)
        allowed |= {f'rdma/{fn}' for fn in os.listdir('/usr/include/rdma')}
    for side in (ours, theirs):
        for sub in ('infiniband', 'rdma'):
            d = os.path.join(side.incdir, sub)
            for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                rel = f'{sub}/{fn}'
                if rel not in allowed:
                    report.fail(f'{side.label}: {rel} is not a known public header '
                                '(add it to PUBLIC_HEADERS or PROVIDER_HEADERS in tests/abi/abi.py)')

    def usable(side, header):
        if not os.path.exists(os.path.join(side.incdir, header)):
            return f'{side.label}: {header} does not exist (not compared)'
        ok, err = side.compiles_alone(header)
        if not ok:
            first = '\n'.join([l for l in err.splitlines() if 'error' in l][:3])
            return f'{side.label}: {header} does not compile on its own (not compared):\n{first}'
        return None

    jobs = [(s, h) for h in abi.PUBLIC_HEADERS for s in (ours, theirs)]
    with ThreadPoolExecutor() as pool:
        problems = list(pool.map(lambda j: usable(*j), jobs))
    bad = set()
    for (side, header), problem in zip(jobs, problems):
        if problem:
            report.fail(problem)
            bad.add(header)
    ours.headers = theirs.headers = [h for h in abi.PUBLIC_HEADERS if h not in bad]
    if not ours.headers:
        report.finish('nothing to compare')


# ---------------------------------------------------------------- layout

DIE = re.compile(r'\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)(?: \((\w+)\))?')
ATTR = re.compile(r'\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s?(.*)')
AGGREGATE = {'DW_TAG_structure_type': 'struct', 'DW_TAG_union_type': 'union',
             'DW_TAG_enumeration_type': 'enum'}
QUALIFIER = {'DW_TAG_const_type': 'const', 'DW_TAG_volatile_type': 'volatile',
             'DW_TAG_restrict_type': 'restrict', 'DW_TAG_atomic_type': '_Atomic'}


class Die:
    __slots__ = ('tag', 'at', 'kids')

    def __init__(self, tag):
        self.tag, self.at, self.kids = tag, {}, []

    def name(self):
        v = self.at.get('DW_AT_name')
        if v is not None and v.startswith('(') and '): ' in v:
            v = v.split('): ', 1)[1]
        return v

    def num(self, attr, default=None):
        v = self.at.get(attr)
        try:
            return int(v.split()[0], 0) if v is not None else default
        except ValueError:
            return default

    def ref(self, attr='DW_AT_type'):
        m = re.match(r'<0x([0-9a-f]+)>', self.at.get(attr, ''))
        return int(m.group(1), 16) if m else None


def read_dwarf(obj):
    """(root DIE, {offset: Die}, [file names by DWARF index])."""
    dies, stack, cur = {}, [], None
    root = Die('root')
    text = abi.run(['readelf', '--debug-dump=info', obj]).stdout
    for line in text.splitlines():
        m = DIE.match(line)
        if m:
            depth, off, abbrev, tag = int(m.group(1)), int(m.group(2), 16), m.group(3), m.group(4)
            if abbrev == '0':
                cur = None
                continue
            cur = dies[off] = Die(tag)
            del stack[depth:]
            (stack[-1] if stack else root).kids.append(cur)
            stack.append(cur)
        elif cur is not None and (m := ATTR.match(line)):
            cur.at[m.group(1)] = m.group(2).strip()
    dirs, files, table = [], [], None
    for line in abi.run(['readelf', '--debug-dump=rawline', obj]).stdout.splitlines():
        if 'The Directory Table' in line:
            table = dirs
        elif 'The File Name Table' in line:
            table = files
        elif table is not None and re.match(r'\s+\d+\t', line):
            cols = line.strip().split('\t')
            name = cols[-1].split('): ', 1)[1] if cols[-1].startswith('(') else cols[-1]
            table.append(name if table is dirs else os.path.join(dirs[int(cols[1])], name))
        elif table is files and not line.strip():
            table = None
    return root, dies, files


class Layout:
    """Records of the public types of one probe, keyed 'struct X', 'enum X',
    'typedef X', 'enumerator X'; public holds the keys a public header made."""

    def __init__(self, side, obj):
        self.side = side
        root, self.dies, self.files = read_dwarf(obj)
        self.labels, self.records, self.public, self.memo, self.paths = {}, {}, set(), {}, {}
        for die in self.dies.values():
            target = self.dies.get(die.ref())
            if die.tag == 'DW_TAG_typedef' and target and target.tag in AGGREGATE \
                    and target.name() is None:
                self.labels[id(target)] = f'{AGGREGATE[target.tag]} <anonymous, typedef {die.name()}>'
        self.walk(root.kids[0].kids if root.kids else [])

    def origin(self, die):
        idx = die.num('DW_AT_decl_file')
        if idx is None or idx >= len(self.files):
            return None
        return self.side.public(self.files[idx])

    def add(self, key, record, die):
        old = self.records.get(key)
        if old and old.get('size') != 'incomplete' and record.get('size') == 'incomplete':
            return
        self.records[key] = record
        idx = die.num('DW_AT_decl_file')
        self.paths[key] = self.files[idx] if idx is not None and idx < len(self.files) else None
        if self.origin(die):
            self.public.add(key)

    def walk(self, dies):
        for die in dies:
            kind, name = AGGREGATE.get(die.tag), die.name()
            label = f'{kind} {name}' if name else self.labels.get(id(die))
            if kind == 'enum':
                self.enum(die, label)
            elif kind and label:
                self.add(label, self.aggregate(die), die)
            elif die.tag == 'DW_TAG_typedef':
                self.add(f'typedef {name}', {'type': self.type(die.ref()),
                                             'size': self.size(die.ref())}, die)
            if kind in ('struct', 'union'):
                self.walk(die.kids)   # tags defined inside still have file scope

    def enum(self, die, label):
        names = []
        for k in die.kids:
            if k.tag == 'DW_TAG_enumerator':
                names.append(k.name())
                self.add(f'enumerator {k.name()}', {'value': k.num('DW_AT_const_value')}, die)
        if label:
            size = die.num('DW_AT_byte_size') if 'DW_AT_declaration' not in die.at else 'incomplete'
            self.add(label, {'size': size, 'type': self.type(die.ref()) if die.ref() else '-',
                             'constants': frozenset(names)}, die)

    def aggregate(self, die):
        if 'DW_AT_declaration' in die.at:
            return {'size': 'incomplete', 'members': []}
        rec = {'size': die.num('DW_AT_byte_size'), 'members': []}
        if 'DW_AT_alignment' in die.at:
            rec['alignment'] = die.num('DW_AT_alignment')
        self.members(die, 0, '', rec['members'])
        return rec

    def members(self, die, base, prefix, out):
        for k in die.kids:
            if k.tag != 'DW_TAG_member':
                continue
            t = self.dies.get(k.ref())
            anonymous = t is not None and t.tag in AGGREGATE and t.name() is None \
                and id(t) not in self.labels
            off = base + k.num('DW_AT_data_member_location', 0)
            if 'DW_AT_bit_size' in k.at:
                bit = base * 8 + k.num('DW_AT_data_bit_offset', 0)
                where, size = f'bit {bit}', f'{k.num("DW_AT_bit_size")} bits'
            else:
                where, size = off, self.size(k.ref())
            if k.name() is None and anonymous:
                self.members(t, off, prefix, out)       # C11 anonymous struct/union
                continue
            path = prefix + (k.name() or '<unnamed>')
            m = {'name': path, 'offset': where, 'size': size, 'type': self.type(k.ref())}
            if 'DW_AT_alignment' in k.at:
                m['alignment'] = k.num('DW_AT_alignment')
            out.append(m)
            if anonymous:
                self.members(t, off, path + '.', out)

    def dims(self, die):
        out = ''
        for k in die.kids:
            if k.tag == 'DW_TAG_subrange_type':
                n = k.num('DW_AT_count')
                if n is None and k.num('DW_AT_upper_bound') is not None:
                    n = k.num('DW_AT_upper_bound') + 1
                out += f'[{"" if n is None else n}]'
        return out

    def size(self, ref):
        die = self.dies.get(ref)
        if die is None:
            return None
        if die.tag == 'DW_TAG_array_type':
            n = self.size(die.ref())
            for count in re.findall(r'\[(\d*)\]', self.dims(die)):
                n = n * int(count or 0) if n is not None else None
            return n
        if 'DW_AT_byte_size' in die.at:
            return die.num('DW_AT_byte_size')
        if die.tag == 'DW_TAG_typedef' or die.tag in QUALIFIER:
            return self.size(die.ref())
        return None

    def type(self, ref):
        """A type as a string read right to left: 'char const *' is a
        pointer to const char, 'int (struct ibv_cq *) *' a function pointer."""
        if ref is None:
            return 'void'
        if ref not in self.memo:
            self.memo[ref] = self.render(self.dies[ref])
        return self.memo[ref]

    def render(self, die):
        tag = die.tag
        if tag in AGGREGATE:
            return (f'{AGGREGATE[tag]} {die.name()}' if die.name() else
                    self.labels.get(id(die), f'{AGGREGATE[tag]} <anonymous>'))
        if tag in ('DW_TAG_base_type', 'DW_TAG_typedef'):
            return die.name()
        if tag == 'DW_TAG_pointer_type':
            return self.type(die.ref()) + ' *'
        if tag in QUALIFIER:
            return f'{self.type(die.ref())} {QUALIFIER[tag]}'
        if tag == 'DW_TAG_array_type':
            return f'{self.type(die.ref())} {self.dims(die)}'
        if tag == 'DW_TAG_subroutine_type':
            params = [self.type(k.ref()) for k in die.kids if k.tag == 'DW_TAG_formal_parameter']
            if any(k.tag == 'DW_TAG_unspecified_parameters' for k in die.kids):
                params.append('...')
            elif not params and 'DW_AT_prototyped' in die.at:
                params = ['void']
            return f'{self.type(die.ref())} ({", ".join(params)})'
        return f'<{tag}>'


def show(rec):
    return ', '.join(f'{k} {" ".join(sorted(v)) if isinstance(v, frozenset) else v}'
                     for k, v in rec.items() if k != 'members')


def differ(field, o, t):
    if isinstance(o, frozenset) and isinstance(t, frozenset):
        return (f'{field} only in ours: {" ".join(sorted(o - t)) or "-"}; '
                f'only in upstream: {" ".join(sorted(t - o)) or "-"}')
    return f'{field} {"-" if o is None else o} (ours) vs {"-" if t is None else t} (upstream)'


def uapi_lag(key, ours, theirs):
    """Does ours take this enum from the system's kernel UAPI headers (which
    only ever gain constants), lacking only constants it defines elsewhere?"""
    path = os.path.realpath(ours.paths.get(key) or '')
    # a cross compiler's are its own (/usr/i686-linux-gnu/include/rdma)
    if not re.match(r'/usr/(?:[\w-]+-linux-gnu/)?include/(rdma|linux)/', path):
        return False
    o, t = ours.records[key]['constants'], theirs.records[key]['constants']
    return o < t and all(ours.records.get(f'enumerator {c}') ==
                         theirs.records.get(f'enumerator {c}') for c in t - o)


def compare_layouts(report, ours, theirs):
    keys = ours.public | theirs.public
    for key in sorted(keys):
        o, t = ours.records.get(key), theirs.records.get(key)
        if o is None:
            report.fail(f'{key}: missing in ours (upstream: {show(t)})')
            continue
        if t is None:
            report.fail(f'{key}: not in upstream (ours: {show(o)})')
            continue
        for field in sorted((set(o) | set(t)) - {'members'}):
            if o.get(field) == t.get(field):
                continue
            if field == 'constants' and uapi_lag(key, ours, theirs):
                report.info(f'KNOWN {key} lacks {" ".join(sorted(t[field] - o[field]))}: our enum is '
                            f'the kernel\'s ({ours.paths[key]}), older than upstream\'s copy; '
                            'each missing constant is still defined with upstream\'s value')
                continue
            report.fail(f'{key}: {differ(field, o.get(field), t.get(field))}')
        om = {m['name']: m for m in o.get('members', [])}
        tm = {m['name']: m for m in t.get('members', [])}
        for name in [m['name'] for m in t.get('members', [])]:
            if name not in om:
                report.fail(f'{key}: member {name} missing in ours (upstream: {show(tm[name])})')
                continue
            diffs = [f'{f} {om[name].get(f, "-")} (ours) vs {tm[name].get(f, "-")} (upstream)'
                     for f in ('offset', 'size', 'type', 'alignment')
                     if om[name].get(f) != tm[name].get(f)]
            if diffs:
                report.fail(f'{key}: member {name}: ' + ', '.join(diffs))
        for name in om.keys() - tm.keys():
            report.fail(f'{key}: member {name} not in upstream (ours: {show(om[name])})')
    kinds = {}
    for key in keys:
        kinds[key.split()[0]] = kinds.get(key.split()[0], 0) + 1
    return ', '.join(f'{n} {k}s' for k, n in sorted(kinds.items())) + ' compared'


def layout(report, sides):
    tables = []
    for side in sides:
        side.compile(report, 'layout', side.probe(),
                     ['-g', '-fno-eliminate-unused-debug-types', '-O0', '-w', '-c',
                      '-o', os.path.join(side.tmp, 'layout.o')])
        tables.append(Layout(side, os.path.join(side.tmp, 'layout.o')))
    keys = sorted(tables[0].public | tables[1].public)
    for side, table in zip(sides, tables):
        alignof(report, side, table, keys)
    return compare_layouts(report, *tables)


def alignof(report, side, table, keys):
    """Add each complete type's _Alignof, which DWARF does not record (a
    packed struct can have upstream's offsets and size, yet not its alignment)."""
    exprs = {}
    for key in keys:
        rec = table.records.get(key)
        kind, _, name = key.partition(' ')
        if rec is None or not isinstance(rec.get('size'), int) or kind == 'enumerator':
            continue
        m = re.match(r'(struct|union|enum) <anonymous, typedef (\w+)>', key)
        exprs[key] = m.group(2) if m else name if kind == 'typedef' else key
    body = ''.join(f'char a{i}[_Alignof({e})];\n' for i, e in enumerate(exprs.values()))
    obj = os.path.join(side.tmp, 'alignof.o')
    side.compile(report, 'alignof', side.probe(f'struct abi_alignof {{\n{body}}};\n'),
                 ['-g', '-fno-eliminate-unused-debug-types', '-O0', '-w', '-c', '-o', obj])
    sizes = Layout(side, obj).records['struct abi_alignof']['members']
    for key, member in zip(exprs, sizes):
        table.records[key]['alignof'] = member['size']


# ---------------------------------------------------------------- macros

MARKER = re.compile(r'# \d+ "(.*)"')
DEFINE = re.compile(r'^#define (\w+)(\(?)', re.M)

GENERIC = '''
#include <stdio.h>
#define ABI_TYPE(x) _Generic((x), _Bool: "_Bool", char: "char", \\
    signed char: "signed char", unsigned char: "unsigned char", short: "short", \\
    unsigned short: "unsigned short", int: "int", unsigned: "unsigned int", \\
    long: "long", unsigned long: "unsigned long", long long: "long long", \\
    unsigned long long: "unsigned long long", float: "float", double: "double", \\
    long double: "long double", char *: "char *", const char *: "const char *", \\
    default: "other")
#define ABI_SHOW(n, x) _Generic((x), _Bool: abi_u, unsigned char: abi_u, \\
    unsigned short: abi_u, unsigned: abi_u, unsigned long: abi_u, \\
    unsigned long long: abi_u, char: abi_i, signed char: abi_i, short: abi_i, \\
    int: abi_i, long: abi_i, long long: abi_i, float: abi_f, double: abi_f, \\
    long double: abi_f, char *: abi_s, const char *: abi_s, \\
    default: abi_other)(n, ABI_TYPE(x), (x))
static void abi_i(const char *n, const char *t, long long v)
{ printf("%s\\tint\\t%s\\t%lld\\n", n, t, v); }
static void abi_u(const char *n, const char *t, unsigned long long v)
{ printf("%s\\tint\\t%s\\t%llu\\n", n, t, v); }
static void abi_f(const char *n, const char *t, long double v)
{ printf("%s\\tfloat\\t%s\\t%La\\n", n, t, v); }
static void abi_other(const char *n, const char *t, ...)
{ printf("%s\\tother\\t%s\\t-\\n", n, t); }
static void abi_s(const char *n, const char *t, const char *v)
{
	printf("%s\\tstring\\t%s\\t\\"", n, t);
	for (; *v; v++)
		printf(*v >= 0x20 && *v < 0x7f && *v != '"' && *v != '\\\\' ? "%c" : "\\\\x%02x",
		       (unsigned char)*v);
	printf("\\"\\n");
}
'''


def macro_table(report, side):
    """{name: (origin header or None, function-like?)} after all public headers."""
    p, _ = side.compile(report, 'macros', side.probe(), ['-E', '-dD', '-w'])
    defs, origin = {}, None
    for line in p.stdout.splitlines():
        if m := MARKER.match(line):
            origin = side.public(m.group(1)) if not m.group(1).startswith('<') else None
        elif m := DEFINE.match(line):
            defs[m.group(1)] = (origin, m.group(2) == '(')
        elif line.startswith('#undef '):
            defs.pop(line.split()[1], None)
    # -dD misses what #pragma pop_macro undoes; -dM has the final state.
    p, _ = side.compile(report, 'macros', side.probe(), ['-E', '-dM', '-w'])
    final = {m.group(1) for m in DEFINE.finditer(p.stdout)}
    return {n: v for n, v in defs.items() if n in final}


def macro_values(report, side, defs, names):
    """{name: printable value} for every name, as this side defines it."""
    values = {n: 'not defined' for n in names if n not in defs}
    values.update({n: 'function-like macro' for n in names if n in defs and defs[n][1]})
    objs = [n for n in names if n in defs and not defs[n][1]]
    lines = ''.join(f'@@@ {i} @@@ {n}\n' for i, n in enumerate(objs))
    p, _ = side.compile(report, 'expand', side.probe(lines), ['-E', '-P', '-w'])
    text = {}
    for line in p.stdout.splitlines():
        if m := re.match(r'@@@ (\d+) @@@ ?(.*)', line):
            text[objs[int(m.group(1))]] = ' '.join(m.group(2).split())
    todo = []
    for n in objs:
        if text.get(n, '') == '':
            values[n] = 'empty'
        else:
            todo.append(n)
    # Evaluate; a macro that is no expression breaks the compile at its own
    # function, is dropped, and is compared by its expansion instead.
    exe = os.path.join(side.tmp, 'macros')
    for _ in range(8):
        body = ''.join(f'static void abi_m{i}(void) {{ ABI_SHOW("{n}", {n}); }}\n'
                       for i, n in enumerate(todo))
        calls = ''.join(f'abi_m{i}(); ' for i in range(len(todo)))
        p, src = side.compile(report, 'values',
                              GENERIC + side.probe(body + f'int main(void) {{ {calls}return 0; }}\n'),
                              ['-w', '-Werror=implicit-function-declaration', '-o', exe],
                              check=False)
        if p.returncode == 0:
            break
        first = len((GENERIC + side.probe()).splitlines()) + 1
        bad = {int(l) - first for l in re.findall(re.escape(os.path.basename(src)) + r':(\d+):',
                                                  p.stderr)}
        bad |= {int(i) for i in re.findall(r"in function `abi_m(\d+)'", p.stderr)}
        bad = {i for i in bad if 0 <= i < len(todo)}
        if not bad:
            sys.exit(f'{side.label}: macro probe failed:\n{p.stderr}')
        for i in bad:
            values[todo[i]] = f'expands to `{text[todo[i]]}`'
        todo = [n for i, n in enumerate(todo) if i not in bad]
    else:
        sys.exit(f'{side.label}: macro probe keeps failing:\n{p.stderr}')
    for line in abi.run([exe]).stdout.splitlines():
        n, kind, ctype, val = line.split('\t', 3)
        values[n] = (f'expands to `{text[n]}`' if kind == 'other' else
                     f'{val} ({ctype})' if kind in ('int', 'float') else f'{ctype} {val}')
    return values


def macros(report, sides):
    tables = [macro_table(report, s) for s in sides]
    names = sorted({n for t in tables for n, (o, _) in t.items() if o})
    ours, theirs = (macro_values(report, s, t, names) for s, t in zip(sides, tables))
    for n in names:
        if ours[n] != theirs[n]:
            report.fail(f'macro {n}: {ours[n]} (ours) vs {theirs[n]} (upstream)')
    funcs = sum(1 for n in names if theirs[n] == 'function-like macro')
    return f'{len(names)} macros compared ({funcs} function-like, by name)'


# ---------------------------------------------------------------- prototypes

AUX = re.compile(r'/\* (.*):\d+:[NO][CF] \*/ (.*?);(?: /\* \((.*?)\) .*\*/)?$')


def unname(decl, fname, params):
    """decl without its parameter names (listed by -aux-info for definitions)."""
    start = decl.index(fname + ' (') + len(fname) + 1
    depth, parts, last = 0, [], start + 1
    for i in range(start, len(decl)):
        c = decl[i]
        depth += c == '('
        depth -= c == ')'
        if (c == ',' and depth == 1) or depth == 0:
            parts.append(decl[last:i])
            last = i + 1
        if depth == 0:
            break
    names = [p.strip() for p in params.split(',')] if params else []
    for j, n in enumerate(names[:len(parts)]):
        parts[j] = re.sub(rf'\b{re.escape(n)}\b(?!.*\b{re.escape(n)}\b)', '', parts[j])
    return decl[:start] + '(' + ','.join(parts) + decl[i:]


def prototypes_of(report, side):
    aux = os.path.join(side.tmp, 'protos.aux')
    side.compile(report, 'protos', side.probe(), ['-fsyntax-only', '-w', '-aux-info', aux])
    protos = {}
    with open(aux) as f:
        for line in f:
            m = AUX.match(line.strip())
            if not m:
                continue
            path, decl, params = m.groups()
            fname = re.search(r'(\w+) \((?!\*)', decl)
            if not fname:
                continue
            fname = fname.group(1)
            decl = unname(decl, fname, params)
            decl = re.sub(r'\s*(\*+)\s*', r' \1', ' '.join(decl.split()))
            decl = re.sub(r'\s*([(\[])\s*', r'\1', decl)
            decl = re.sub(r',\s*', ', ', re.sub(r'\s*([,)\]])', r'\1', decl))
            protos.setdefault(fname, [set(), None])[0].add(decl)
            if side.public(path):
                protos[fname][1] = side.public(path)
    return protos


def prototypes(report, sides):
    ours, theirs = (prototypes_of(report, s) for s in sides)
    names = sorted({n for t in (ours, theirs) for n, (_, o) in t.items() if o})
    for n in names:
        o, t = ours.get(n, [set()])[0], theirs.get(n, [set()])[0]
        if o != t:
            report.fail(f'function {n}: {" | ".join(sorted(o)) or "not declared"} (ours) vs '
                        f'{" | ".join(sorted(t)) or "not declared"} (upstream)')
    return f'{len(names)} functions compared'


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['layout', 'macros', 'prototypes'])
    ap.add_argument('--ours', required=True, help='include directory under test')
    ap.add_argument('--reference', required=True, help='unpacked upstream root')
    ap.add_argument('--gcc', default='gcc')
    a = ap.parse_args()
    report = abi.Report(f'abi-{a.mode}')
    with tempfile.TemporaryDirectory(prefix='abi-') as tmp:
        sides = (Side('ours', a.ours, a.gcc, tmp),
                 Side('upstream', os.path.join(a.reference, 'usr', 'include'), a.gcc, tmp))
        select_headers(report, *sides)
        summary = {'layout': layout, 'macros': macros, 'prototypes': prototypes}[a.mode](report, sides)
        report.info(f'headers probed: {" ".join(sides[0].headers)}')
    report.finish(summary)


if __name__ == '__main__':
    main()
