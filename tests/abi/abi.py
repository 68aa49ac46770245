# SPDX-License-Identifier: MIT
"""Helpers shared by the ABI suite's checks (stdlib only)."""
import os
import subprocess
import sys

# The headers openverbs installs, as users include them.  Upstream's
# libibverbs-dev also ships the direct-verbs headers of providers we do not
# build; they are listed so that a new upstream header cannot slip by unseen.
PUBLIC_HEADERS = [
    'infiniband/verbs.h', 'infiniband/verbs_api.h', 'infiniband/opcode.h',
    'infiniband/arch.h', 'infiniband/tm_types.h',
    'infiniband/ib_user_ioctl_verbs.h', 'infiniband/sa.h',
    'infiniband/sa-kern-abi.h', 'infiniband/ib.h',
    'rdma/rdma_cma.h', 'rdma/rdma_cma_abi.h', 'rdma/rdma_verbs.h',
    'rdma/rsocket.h',
]
PROVIDER_HEADERS = [
    'infiniband/efadv.h', 'infiniband/manadv.h', 'infiniband/mlx4dv.h',
    'infiniband/mlx5dv.h', 'infiniband/mlx5_api.h',
    'infiniband/mlx5_user_ioctl_verbs.h',
]
# Kernel UAPI headers also live in rdma/ (linux-libc-dev); these are ours.
RDMA_PUBLIC = {h.split('/')[1] for h in PUBLIC_HEADERS if h.startswith('rdma/')}


class Report:
    """Collects failures; prints them as they come and a verdict at the end."""

    def __init__(self, name):
        self.name, self.failures = name, 0

    def fail(self, msg):
        self.failures += 1
        print(f'FAIL {msg}')

    def info(self, msg):
        print(f'     {msg}')

    def finish(self, summary=''):
        if self.failures:
            print(f'{self.name}: {self.failures} failure(s). {summary}'.rstrip())
            sys.exit(1)
        print(f'{self.name}: ok. {summary}'.rstrip())
        sys.exit(0)


def run(cmd, check=True, **kw):
    """Run cmd, return CompletedProcess with text output."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        sys.exit(f'command failed ({p.returncode}): {" ".join(cmd)}\n{p.stderr}')
    return p


def find_lib(root, soname):
    """The file named soname under root/usr/lib/<triplet>/, or None."""
    base = os.path.join(root, 'usr', 'lib')
    for sub in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        path = os.path.join(base, sub, soname)
        if os.path.exists(path):
            return path
    return None


def owns_header(path, incdir):
    """Is path a public RDMA header that must come from incdir?
    Returns None for unrelated headers, else True/False (inside incdir)."""
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    rel = None
    if len(parts) >= 2 and parts[-2] == 'infiniband':
        rel = 'infiniband'
    elif len(parts) >= 2 and parts[-2] == 'rdma' and parts[-1] in RDMA_PUBLIC:
        rel = 'rdma'
    if rel is None:
        return None
    want = os.path.join(os.path.realpath(incdir), rel) + os.sep
    return real.startswith(want)


def read_depfile(path):
    """Prerequisites listed in a gcc -MD dependency file."""
    with open(path) as f:
        text = f.read().replace('\\\n', ' ')
    deps = []
    for line in text.splitlines():
        if ':' in line:
            deps += line.split(':', 1)[1].split()
    return deps


def check_provenance(report, depfile, incdir, what):
    """Fail for every RDMA public header a compile took from outside incdir."""
    for dep in read_depfile(depfile):
        if owns_header(dep, incdir) is False:
            report.fail(f'{what}: used {os.path.realpath(dep)}, not a header under {incdir}')
