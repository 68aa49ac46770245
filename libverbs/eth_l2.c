/* SPDX-License-Identifier: MIT */
/*
 * ibv_resolve_eth_l2_from_gid: the Ethernet destination and VLAN behind a
 * RoCE GID, for providers that build address vectors in user space.
 *
 * Link-local and multicast GIDs carry their MAC address; any other GID is
 * an IP address, resolved as the kernel would route a packet to it: the
 * route from the source GID's netdev gives the next hop (or says the
 * address is this host's own), and the neighbour table gives its MAC,
 * after a datagram has made the kernel ask for it if need be.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_vlan.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "internal.h"
#include "netlink.h"

/* How long a neighbour may take to answer; the kernel retries ARP and
 * neighbour solicitation once a second, three times by default. */
enum { RESOLVE_TIMEOUT_MS = 3000, RESOLVE_POLL_MS = 10 };

/* "No VLAN", as the kernel reports it for RoCE GIDs. */
enum { NO_VLAN = 0xffff };

struct ip_addr {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t bytes[16];		/* 4 used for AF_INET */
};

static size_t addr_len(const struct ip_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

static void gid_to_ip(const union ibv_gid *gid, struct ip_addr *ip)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(gid->raw, v4_mapped, sizeof(v4_mapped))) {
		ip->family = AF_INET;
		memcpy(ip->bytes, gid->raw + 12, 4);
	} else {
		ip->family = AF_INET6;
		memcpy(ip->bytes, gid->raw, 16);
	}
}

/* MAC addresses a GID states outright: fe80::/64 with a modified EUI-64
 * interface id, and IPv6 or IPv4 multicast. */
static bool mac_from_gid(const struct ip_addr *ip, uint8_t mac[ETHERNET_LL_SIZE])
{
	const uint8_t *b = ip->bytes;

	if (ip->family == AF_INET6 && b[0] == 0xfe && (b[1] & 0xc0) == 0x80 &&
	    b[11] == 0xff && b[12] == 0xfe) {
		uint8_t eui[ETHERNET_LL_SIZE] = { b[8] ^ 0x02, b[9], b[10], b[13], b[14], b[15] };

		memcpy(mac, eui, sizeof(eui));
		return true;
	}
	if (ip->family == AF_INET6 && b[0] == 0xff) {
		uint8_t group[ETHERNET_LL_SIZE] = { 0x33, 0x33, b[12], b[13], b[14], b[15] };

		memcpy(mac, group, sizeof(group));
		return true;
	}
	if (ip->family == AF_INET && (b[0] & 0xf0) == 0xe0) {
		uint8_t group[ETHERNET_LL_SIZE] = { 0x01, 0x00, 0x5e, b[1] & 0x7f, b[2], b[3] };

		memcpy(mac, group, sizeof(group));
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* rtnetlink, one question at a time                                   */

struct rt_request {
	struct nlmsghdr hdr;
	union {
		struct rtmsg rt;
		struct ndmsg nd;
	};
	char attrs[64];
};

static void put_attr(struct rt_request *req, uint16_t type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)req + NLMSG_ALIGN(req->hdr.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req->hdr.nlmsg_len = NLMSG_ALIGN(req->hdr.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int keep_reply(struct nlmsghdr *nlh, void *arg)
{
	*(struct nlmsghdr **)arg = nlh;
	return 0;
}

/* Sends req and reads its one reply into buf: 0 with *reply set, or an
 * errno (the kernel's, if it refused). */
static int rt_ask(int fd, struct rt_request *req, void *buf, size_t size,
		  struct nlmsghdr **reply)
{
	int ret;

	*reply = NULL;
	req->hdr.nlmsg_flags = NLM_F_REQUEST;
	ret = verbs_nl_exchange(fd, &req->hdr, buf, size, keep_reply, reply);
	if (!ret && !*reply)
		ret = EPROTO;
	return ret;
}

static struct rtattr *find_attr(struct rtattr *rta, int len, uint16_t type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type)
			return rta;
	return NULL;
}

/* The next hop towards dst out of ifindex: dst itself or its gateway.
 * *local is set when dst is an address of this host.  The route is looked
 * up without naming the interface (with one, the kernel would take any
 * address as on-link), then must leave through it. */
static int next_hop(int fd, int ifindex, const struct ip_addr *dst, struct ip_addr *hop,
		    bool *local)
{
	struct rt_request req = {
		.hdr = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
			 .nlmsg_type = RTM_GETROUTE },
		.rt = { .rtm_family = dst->family, .rtm_dst_len = addr_len(dst) * 8 },
	};
	union {
		struct nlmsghdr hdr;
		char bytes[4096];
	} reply;
	struct nlmsghdr *nlh;
	struct rtmsg *rt;
	struct rtattr *gw, *oif;
	int ret;

	put_attr(&req, RTA_DST, dst->bytes, addr_len(dst));
	ret = rt_ask(fd, &req, &reply, sizeof(reply), &nlh);
	if (ret)
		return ret == ENETUNREACH ? EHOSTUNREACH : ret;
	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return EPROTO;
	rt = NLMSG_DATA(nlh);
	*local = rt->rtm_type == RTN_LOCAL;
	oif = find_attr(RTM_RTA(rt), RTM_PAYLOAD(nlh), RTA_OIF);
	if (!*local && (rt->rtm_type != RTN_UNICAST || !oif ||
			*(int *)RTA_DATA(oif) != ifindex))
		return EHOSTUNREACH;
	*hop = *dst;
	gw = find_attr(RTM_RTA(rt), RTM_PAYLOAD(nlh), RTA_GATEWAY);
	if (gw && RTA_PAYLOAD(gw) == addr_len(dst))
		memcpy(hop->bytes, RTA_DATA(gw), addr_len(dst));
	return 0;
}

/* The neighbour entry for hop on ifindex: 0 with mac filled, EAGAIN
 * while it is being resolved (or not known yet), EHOSTUNREACH once
 * resolution failed. */
static int neighbour(int fd, int ifindex, const struct ip_addr *hop,
		     uint8_t mac[ETHERNET_LL_SIZE])
{
	struct rt_request req = {
		.hdr = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
			 .nlmsg_type = RTM_GETNEIGH },
		.nd = { .ndm_family = hop->family, .ndm_ifindex = ifindex },
	};
	union {
		struct nlmsghdr hdr;
		char bytes[4096];
	} reply;
	struct nlmsghdr *nlh;
	struct ndmsg *nd;
	struct rtattr *lladdr;
	int ret;

	put_attr(&req, NDA_DST, hop->bytes, addr_len(hop));
	ret = rt_ask(fd, &req, &reply, sizeof(reply), &nlh);
	if (ret)
		return ret == ENOENT ? EAGAIN : ret;
	if (nlh->nlmsg_type != RTM_NEWNEIGH)
		return EPROTO;
	nd = NLMSG_DATA(nlh);
	if (nd->ndm_state & NUD_FAILED)
		return EHOSTUNREACH;
	if (!(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE |
			       NUD_PERMANENT | NUD_NOARP)))
		return EAGAIN;
	lladdr = find_attr((struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd))),
			   nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)), NDA_LLADDR);
	if (!lladdr || RTA_PAYLOAD(lladdr) != ETHERNET_LL_SIZE)
		return EAGAIN;
	memcpy(mac, RTA_DATA(lladdr), ETHERNET_LL_SIZE);
	return 0;
}

/* A datagram to the discard port makes the kernel resolve the next hop
 * on ifname's link. */
static void provoke_resolution(const char *ifname, const struct ip_addr *hop)
{
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr_in to4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd = socket(hop->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	/* Where allowed (CAP_NET_RAW), out of the GID's own netdev. */
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, strlen(ifname));
	if (hop->family == AF_INET) {
		memcpy(&to4.sin_addr, hop->bytes, 4);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&to4, sizeof(to4));
	} else {
		memcpy(&to6.sin6_addr, hop->bytes, 16);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&to6, sizeof(to6));
	}
	close(fd);
}

static int own_mac(int fd, const char *ifname, uint8_t mac[ETHERNET_LL_SIZE])
{
	struct ifreq ifr = {};

	/* if_indextoname() names fit: IF_NAMESIZE == IFNAMSIZ */
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		return errno;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, ETHERNET_LL_SIZE);
	return 0;
}

static uint16_t vlan_of(int fd, const char *ifname)
{
	struct vlan_ioctl_args args = { .cmd = GET_VLAN_VID_CMD };

	memcpy(args.device1, ifname, strnlen(ifname, sizeof(args.device1) - 1));
	return ioctl(fd, SIOCGIFVLAN, &args) ? NO_VLAN : args.u.VID;
}

/* inet_fd: a socket for the interface ioctls. */
static int resolve_neighbour(int inet_fd, int ifindex, const char *ifname,
			     const struct ip_addr *dst, uint8_t mac[ETHERNET_LL_SIZE])
{
	struct ip_addr hop;
	bool local = false;
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return errno;
	ret = next_hop(fd, ifindex, dst, &hop, &local);
	if (!ret && local) {
		ret = own_mac(inet_fd, ifname, mac);
	} else if (!ret) {
		ret = neighbour(fd, ifindex, &hop, mac);
		if (ret == EAGAIN)
			provoke_resolution(ifname, &hop);
		for (int waited = 0; ret == EAGAIN && waited < RESOLVE_TIMEOUT_MS;
		     waited += RESOLVE_POLL_MS) {
			poll(NULL, 0, RESOLVE_POLL_MS);
			ret = neighbour(fd, ifindex, &hop, mac);
		}
		if (ret == EAGAIN)
			ret = ETIMEDOUT;
	}
	close(fd);
	return ret;
}

/* Failures are negative errno values, as upstream returns them. */
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				uint8_t eth_mac[ETHERNET_LL_SIZE], uint16_t *vid)
{
	struct ibv_gid_entry sgid;
	char ifname[IF_NAMESIZE];
	struct ip_addr dst;
	int fd, ret;

	if (!attr->is_global)
		return -EINVAL;
	if (ibv_query_gid_ex(context, attr->port_num, attr->grh.sgid_index, &sgid, 0) ||
	    !if_indextoname(sgid.ndev_ifindex, ifname))
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (vid)
		*vid = vlan_of(fd, ifname);
	gid_to_ip(&attr->grh.dgid, &dst);
	ret = mac_from_gid(&dst, eth_mac) ? 0 :
	      resolve_neighbour(fd, sgid.ndev_ifindex, ifname, &dst, eth_mac);
	close(fd);
	return -ret;
}
