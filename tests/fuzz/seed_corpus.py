#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# How tests/fuzz/corpus was seeded (README.md here): real inputs where
# this machine has them (rtnetlink replies from the running kernel,
# the names of Debian's *.driver files in build/reference), the rest written out from
# the wire and file formats as the guest's rxe0/siw0 show them.  Campaigns
# grow the corpus from there, minimized with -merge=1.
#   tests/fuzz/seed_corpus.py OUTDIR build/reference/root/etc/libibverbs.d
import os, socket, struct, sys
root = sys.argv[1]
def put(target, name, data):
    d = os.path.join(root, target); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), 'wb').write(data)

# --- netlink: op, ifindex, dst[16], reply (seq 0: the target stamps the request's)
def nl_capture(proto, msg_type, flags, payload):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
    hdr = struct.pack('=IHHII', 16 + len(payload), msg_type, flags, 1, 0)
    s.send(hdr + payload)
    out = b''
    s.settimeout(1)
    try:
        while True:
            d = s.recv(65536)
            out += d
            # stop at DONE or a single reply
            t = struct.unpack_from('=IHHII', d)[1]
            if not (struct.unpack_from('=IHHII', d)[2] & 2) or t == 3:
                break
    except socket.timeout:
        pass
    # zero every message's seq
    b = bytearray(out); off = 0
    while off + 16 <= len(b):
        ln = struct.unpack_from('=I', b, off)[0]
        if ln < 16: break
        struct.pack_into('=I', b, off + 8, 0)
        off += (ln + 3) & ~3
    return bytes(b)
lo = socket.if_nametoindex('lo')
dst4 = socket.inet_aton('127.0.0.1') + bytes(12)
# RTM_GETROUTE (26) for 127.0.0.1: rtmsg + RTA_DST
rtm = struct.pack('=BBBBBBBBI', socket.AF_INET, 32, 0, 0, 0, 0, 0, 0, 0) + struct.pack('=HH', 8, 1) + socket.inet_aton('127.0.0.1')
put('netlink', 'route-local', bytes([2]) + struct.pack('=I', lo) + dst4 + nl_capture(0, 26, 1, rtm))
# RTM_GETNEIGH (30) dump on lo: ndmsg
ndm = struct.pack('=BBHiHBB', socket.AF_INET, 0, 0, 0, 0, 0, 0)
put('netlink', 'neigh-dump', bytes([3]) + struct.pack('=I', lo) + dst4 + nl_capture(0, 30, 1 | 0x300, ndm))
# a neighbour answer as the kernel sends one: ndmsg + NDA_DST + NDA_LLADDR, NUD_REACHABLE
nd = struct.pack('=BBHiHBB', socket.AF_INET, 0, 0, lo, 2, 0, 1) + struct.pack('=HH', 8, 1) + socket.inet_aton('10.0.0.2') + struct.pack('=HH', 10, 2) + bytes([2, 0, 0, 0, 0, 1]) + bytes(2)
put('netlink', 'neigh-reachable', bytes([3]) + struct.pack('=I', lo) + socket.inet_aton('10.0.0.2') + bytes(12) + struct.pack('=IHHII', 16 + len(nd), 28, 0, 0, 0) + nd)
# RDMA netlink: NLDEV (5) << 10 | cmd; attributes as kernel 6.1 sends them
def nla(t, data):
    ln = 4 + len(data)
    return struct.pack('=HH', ln, t) + data + bytes((4 - ln % 4) % 4)
def rdma_msg(cmd, attrs, flags=2):
    body = b''.join(attrs)
    return struct.pack('=IHHII', 16 + len(body), (5 << 10) | cmd, flags, 0, 0) + body
dev = rdma_msg(1, [nla(1, struct.pack('=I', 0)), nla(2, b'rxe0\0'), nla(3, struct.pack('=I', 1)),
                   nla(4, struct.pack('=Q', 0x7fff)), nla(6, b'\0'), nla(7, struct.pack('=Q', 0x505400fffe123456)),
                   nla(8, struct.pack('=Q', 0x505400fffe123456)), nla(12, struct.pack('=B', 1)), nla(0x4f, b'roce\0')])
done = struct.pack('=IHHII', 20, 3, 2, 0, 0) + bytes(4)
put('netlink', 'device-dump', bytes([0]) + bytes(20) + dev + done)
chardev = rdma_msg(0x1b, [nla(0x55, b'uverbs0\0'), nla(0x56, struct.pack('=Q', (231 << 20) | 192)), nla(0x57, struct.pack('=Q', 1)), nla(0x58, b'rxe\0')], flags=0)
put('netlink', 'chardev', bytes([0]) + bytes(20) + chardev)
sys_reply = rdma_msg(6, [nla(0x5a, struct.pack('=B', 0)), nla(0x5d, struct.pack('=B', 1))], flags=0)
put('netlink', 'sys-copy-on-fork', bytes([1]) + bytes(20) + sys_reply)
err = struct.pack('=IHHII', 36, 2, 0, 0, 0) + struct.pack('=i', -95) + struct.pack('=IHHII', 16, 0, 0, 0, 0)
put('netlink', 'error-eopnotsupp', bytes([1]) + bytes(20) + err)

# --- sysfs: six length-prefixed files, as rxe0 and siw0 show them in the guest
def sysfs(*fields):
    return b''.join(bytes([len(f)]) + f for f in fields)
put('sysfs', 'rxe0', sysfs(b'rxe0\n', b'2\n', b'231:192\n', b'1: CA\n', b'5054:00ff:fe12:3456\n', b''))
put('sysfs', 'siw0', sysfs(b'siw0\n', b'1\n', b'231:193\n', b'4: RNIC\n', b'5254:0012:3456:0000\n', b''))
put('sysfs', 'mlx5', sysfs(b'mlx5_0\n', b'1\n', b'231:194\n', b'1: CA\n', b'0c42:a103:0065:3e1c\n', b'pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00\n'))

# --- match: driver_id, abi, ibdev\0, modalias\0
put('match', 'rxe', struct.pack('=II', 14, 2) + b'rxe0\0\0')
put('match', 'siw', struct.pack('=II', 17, 1) + b'siw0\0\0')
put('match', 'mlx5-pci', struct.pack('=II', 0, 1) + b'mlx5_0\0pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00\0')
put('match', 'mlx5-id', struct.pack('=II', 1, 1) + b'mlx5_1\0\0')

# --- plugin_config: one file per plugin Debian ships, in its one-line format
ref = sys.argv[2]
for f in sorted(os.listdir(ref)):
    if f.endswith('.driver'):
        put('plugin_config', f, b'driver ' + f[:-len('.driver')].encode() + b'\n')
put('plugin_config', 'comments-and-junk', b'# a comment\n\n  driver\tmlx5  \nprovider foo\ndriver /opt/lib/libfoo\n')

# --- cmd: op byte (bit 7: write mode) then the kernel's bytes (zeros: success)
for op in range(7):
    for mode in (0, 0x80):
        put('cmd', f'op{op}-{"write" if mode else "ioctl"}', bytes([op | mode]) + bytes(512))

# --- rxe_cq: extended?, cqe, mi.size, pages-1, ring (header + 64-byte slots)
def rxe_ring(n_wc, slots=16):
    hdr = bytearray(384)
    struct.pack_into('=II', hdr, 0, 6, slots - 1)
    struct.pack_into('=I', hdr, 128, n_wc)   # producer
    struct.pack_into('=I', hdr, 256, 0)      # consumer
    data = bytearray(slots * 64)
    for i in range(n_wc):
        # ib_uverbs_wc: wr_id, status, opcode, vendor_err, byte_len, imm, qp_num, src_qp, wc_flags, pkey, slid, sl, dlid_path_bits, port
        struct.pack_into('=QIIIIIIIIHHBBBB', data, i * 64, 0x1000 + i, 0, 128 if i % 2 else 0, 0, 64, 0, 17, 0, 0, 0, 0, 0, 0, 1, 0)
    return bytes(hdr + data)
for ext in (0, 1):
    ring = rxe_ring(3)
    put('rxe_cq', f'three-wcs-{ext}', bytes([ext]) + struct.pack('=II', 15, 4096) + bytes([0]) + ring)
put('rxe_cq', 'empty', bytes([0]) + struct.pack('=II', 15, 4096) + bytes([0]) + rxe_ring(0))

# --- siw_cq: extended?, cqe, num_cqe, pages-1, entries (32 bytes) then ctrl
def siw_array(n_valid, num=16):
    data = bytearray(num * 32 + 8)
    for i in range(n_valid):
        struct.pack_into('=QBBHIQQ', data, i * 32, 0x2000 + i, 1, i % 4, 0, 64, 0, 5)
    return bytes(data)
for ext in (0, 1):
    put('siw_cq', f'three-cqes-{ext}', bytes([ext]) + struct.pack('=II', 16, 16) + bytes([0]) + siw_array(3))

# --- ucma_event: port space, then rdma_ucm_event_resp (uid replaced by the target), then query answers
for ev in range(16):
    resp = struct.pack('=QIIi', 0, 1, ev, 0) + bytes(256)
    put('ucma_event', f'event{ev}', bytes([ev & 1]) + resp + bytes(512))

# --- getaddrinfo: which, flags, family, qp_type, port space, src, dst, node\0, service\0, ibacm reply
def acm_reply(eps):
    body = b''.join(eps)
    return struct.pack('=BBBBBBHQ', 1, 0x81, 0, 0, 0, 0, 16 + len(body), 0) + body
def acm_ep_path(sgid, dgid):
    # acm_ep: type u16, flags u16, pad u32?, then 64-byte union: use a path record layout
    path = bytearray(64); path[8:24] = sgid; path[24:40] = dgid
    return struct.pack('=HHI', 0x10, 0x2, 0) + bytes(path)
def acm_ep_addr(ip):
    return struct.pack('=HHI', 2, 0x1, 0) + ip + bytes(60)
g = bytes([0xfe, 0x80] + [0] * 6 + [2, 0, 0, 0, 0, 0, 0, 1])
for fam in range(4):
    put('getaddrinfo', f'ibacm-path-fam{fam}', bytes([7]) + struct.pack('=I', 0) + bytes([fam, 2, 0, 0, 0]) + b'10.0.0.2\0' + b'7471\0' + acm_reply([acm_ep_addr(socket.inet_aton('10.0.0.1')), acm_ep_path(g, g)]))
put('getaddrinfo', 'passive-v6', bytes([3]) + struct.pack('=I', 1) + bytes([2, 2, 1, 0, 0]) + b'::1\0' + b'7471\0')
put('getaddrinfo', 'hints-only', bytes([4]) + struct.pack('=I', 0) + bytes([1, 4, 1, 16]) + struct.pack('=HH4s8x', 2, 0x1f2e, socket.inet_aton('10.0.0.9')) + bytes([0]) + b'\0\0')
put('getaddrinfo', 'no-ibacm', bytes([3]) + struct.pack('=I', 0) + bytes([0, 2, 0, 0, 0]) + b'10.0.0.2\0' + b'http\0')
