// SPDX-License-Identifier: MIT
/*
 * ibv_resolve_eth_l2_from_gid on rxe0 (netdev rxenet, a dummy, so no ARP
 * goes out): MAC addresses stated by the GID itself (link-local EUI-64,
 * IPv6 and IPv4 multicast), this host's own address, a neighbour entry
 * set with `ip neigh`, a network behind that neighbour as gateway, an
 * on-link address nobody answers for, a network without a route, and a
 * source GID on a VLAN device (VLAN id 7), some of them without asking
 * for the VLAN (vid NULL).  Resolution that has to wait for ARP cannot
 * be shown here: rxe's netdev is a dummy, which does none.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "vmtest.h"

static struct ibv_context *ctx;

static void gid_of(const char *ip, union ibv_gid *gid)
{
	struct in_addr v4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, ip, &v4) == 1) {
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, &v4, 4);
	} else if (inet_pton(AF_INET6, ip, gid->raw) != 1) {
		vt_fail("bad address %s", ip);
	}
}

static void mac_str(const uint8_t *mac, char *s)
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		mac[5]);
}

/* Resolves ip from source GID sgid: want_mac NULL means it must fail
 * with -EHOSTUNREACH (failures are negative errno values upstream). */
static void expect(const char *ip, int sgid, const char *want_mac, int want_vid)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .sgid_index = sgid, .hop_limit = 64 },
	};
	uint8_t mac[ETHERNET_LL_SIZE] = {};
	uint16_t vid = 0x1234;
	char got[32];
	int ret;

	gid_of(ip, &attr.grh.dgid);
	ret = ibv_resolve_eth_l2_from_gid(ctx, &attr, mac, &vid);
	mac_str(mac, got);
	if (!want_mac) {
		if (ret == -EHOSTUNREACH)
			printf("ok %s: fails (%d)\n", ip, ret);
		else if (ret)
			vt_fail("%s: fails with %d, want %d", ip, ret, -EHOSTUNREACH);
		else
			vt_fail("%s: resolved to %s, vid %#x; should fail", ip, got, vid);
		return;
	}
	if (ret)
		vt_fail("%s: fails (%d); want %s", ip, ret, want_mac);
	else if (strcmp(got, want_mac) || vid != want_vid)
		vt_fail("%s: %s vid %#x; want %s vid %#x", ip, got, vid, want_mac, want_vid);
	else
		printf("ok %s: %s vid %#x\n", ip, got, vid);
}

/* The VLAN is an optional output: vid NULL asks for the MAC alone. */
static void expect_mac_only(const char *ip, int sgid, const char *want_mac)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .sgid_index = sgid, .hop_limit = 64 },
	};
	uint8_t mac[ETHERNET_LL_SIZE] = {};
	char got[32];
	int ret;

	gid_of(ip, &attr.grh.dgid);
	ret = ibv_resolve_eth_l2_from_gid(ctx, &attr, mac, NULL);
	mac_str(mac, got);
	CHECK(ret == 0 && !strcmp(got, want_mac), "%s without vid: %d, %s; want %s", ip, ret,
	      got, want_mac);
}

/* The index of GID ip on port 1, or -1. */
static int find_gid(const char *ip, int tries)
{
	union ibv_gid want, gid;
	struct ibv_port_attr port;

	gid_of(ip, &want);
	if (ibv_query_port(ctx, 1, &port))
		return -1;
	for (; tries > 0; tries--) {
		for (int i = 0; i < port.gid_tbl_len; i++)
			if (!ibv_query_gid(ctx, 1, i, &gid) && !memcmp(&gid, &want, sizeof(gid)))
				return i;
		usleep(100 * 1000);
	}
	return -1;
}

int main(void)
{
	const char *netdev = getenv("RDMAVM_RXE_NETDEV");
	struct ibv_ah_attr local = { .port_num = 1 };
	char own[32] = "", path[128];
	uint8_t mac[ETHERNET_LL_SIZE];
	uint16_t vid;
	int sgid, vlan_sgid, ret;
	FILE *f;

	vt_init("eth-l2");
	if (!MUST(netdev))
		return vt_finish();
	if (!MUST(ctx = vt_open_rxe()))
		return vt_finish();
	sgid = vt_gid_index();
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", netdev);
	if (!MUST(f = fopen(path, "r")))
		return vt_finish();
	if (!MUST(fscanf(f, "%31s", own) == 1))
		return vt_finish();
	fclose(f);
	vt_sh("ip neigh replace 192.0.2.7 lladdr 02:11:22:33:44:55 dev %s nud permanent", netdev);
	vt_sh("ip route replace 198.18.200.0/24 via 192.0.2.7 dev %s", netdev);

	printf("-- stated by the GID\n");
	expect("fe80::211:22ff:fe33:4455", sgid, "00:11:22:33:44:55", 0xffff);
	expect("ff02::1:ff33:4455", sgid, "33:33:ff:33:44:55", 0xffff);
	expect("239.129.2.3", sgid, "01:00:5e:01:02:03", 0xffff);

	printf("-- through routes and neighbours\n");
	expect("192.0.2.1", sgid, own, 0xffff);
	expect("192.0.2.7", sgid, "02:11:22:33:44:55", 0xffff);
	/* behind a gateway: the gateway's MAC */
	expect("198.18.200.5", sgid, "02:11:22:33:44:55", 0xffff);
	/* a dummy netdev does no ARP: the kernel's entry is its own MAC */
	expect("192.0.2.99", sgid, own, 0xffff);
	expect("203.0.113.9", sgid, NULL, 0);
	expect_mac_only("192.0.2.7", sgid, "02:11:22:33:44:55");

	printf("-- bad arguments\n");
	ret = ibv_resolve_eth_l2_from_gid(ctx, &local, mac, &vid);
	/* upstream: -EHOSTUNREACH (it looks for ::); ours: -EINVAL */
	CHECK(ret < 0, "no GRH: %d", ret);
	printf("   no GRH: %d\n", ret);
	local.is_global = 1;
	local.grh.sgid_index = 250;
	ret = ibv_resolve_eth_l2_from_gid(ctx, &local, mac, &vid);
	CHECK(ret == -EINVAL, "GID index 250: %d", ret);
	printf("   GID index 250: %d\n", ret);
	local.grh.sgid_index = 0;
	local.port_num = 2;
	ret = ibv_resolve_eth_l2_from_gid(ctx, &local, mac, &vid);
	/* upstream: -1; ours: -EINVAL */
	CHECK(ret < 0, "port 2: %d", ret);
	printf("   port 2: %d\n", ret);

	printf("-- a source GID on VLAN 7\n");
	if (vt_sh("ip link add link %s name %s.7 type vlan id 7 && "
		  "ip addr add 198.18.7.1/24 dev %s.7 && ip link set %s.7 up && "
		  "ip neigh replace 198.18.7.2 lladdr 02:00:00:00:07:02 dev %s.7 nud permanent",
		  netdev, netdev, netdev, netdev, netdev)) {
		vt_fail("cannot make the VLAN device");
	} else {
		vlan_sgid = find_gid("198.18.7.1", 50);
		if (vlan_sgid < 0) {
			vt_fail("rxe0 has no GID for 198.18.7.1");
		} else {
			expect("198.18.7.2", vlan_sgid, "02:00:00:00:07:02", 7);
			expect("198.18.7.1", vlan_sgid, own, 7);
			expect_mac_only("198.18.7.2", vlan_sgid, "02:00:00:00:07:02");
		}
		vt_sh("ip link delete %s.7", netdev);
	}
	ibv_close_device(ctx);
	return vt_finish();
}
