/* SPDX-License-Identifier: MIT */
/* Address handles, replies to UD senders, multicast attachment. */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	const struct verbs_ops *ops = verbs_ops(pd->context);
	struct ibv_ah *ah;

	if (!ops->create_ah) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ah = ops->create_ah(pd, attr);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	const struct verbs_ops *ops = verbs_ops(ah->context);

	return ops->destroy_ah ? ops->destroy_ah(ah) : EOPNOTSUPP;
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);

	return ops->attach_mcast ? ops->attach_mcast(qp, gid, lid)
				 : verbs_cmd_attach_mcast(qp, gid, lid);
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);

	return ops->detach_mcast ? ops->detach_mcast(qp, gid, lid)
				 : verbs_cmd_detach_mcast(qp, gid, lid);
}

/* ------------------------------------------------------------------ */
/* Replying to a UD message                                            */

/*
 * On RoCE v2 over IPv4 the 40 bytes reserved for the GRH hold the IPv4
 * header in their second half; anything else is a real GRH (IB, RoCE v1,
 * RoCE v2 over IPv6).  A GRH starts with IP version 6; only when the
 * second half could also pass for an IPv4 header does its checksum (which
 * soft devices may leave zero otherwise) decide.  -1: neither.
 */
static int grh_ip_version(const struct ibv_grh *grh, const uint8_t **ipv4)
{
	const uint8_t *ip = (const uint8_t *)grh + 20;
	uint32_t sum = 0;

	*ipv4 = ip;
	if (be32toh(grh->version_tclass_flow) >> 28 != 6)
		return ip[0] >> 4 == 4 ? 4 : -1;
	if (ip[0] != 0x45)
		return 6;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff ? 4 : 6;
}

static void ipv4_mapped(union ibv_gid *gid, const uint8_t *addr)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], addr, 4);
}

/* Our GID the packet was sent to, preferring the given type (RoCE v2
 * for IPv4 packets; v2 then v1 or IB otherwise). */
static int find_sgid_index(struct ibv_context *ctx, uint8_t port, const union ibv_gid *gid,
			   bool need_v2, uint8_t *index)
{
	struct ibv_port_attr attr;
	struct ibv_gid_entry e;
	int fallback = -1, ret;

	ret = verbs_query_port_sized(ctx, port, &attr, sizeof(attr));
	if (ret)
		return ret;
	for (int i = 0; i < attr.gid_tbl_len && i <= UINT8_MAX; i++) {
		if (_ibv_query_gid_ex(ctx, port, i, &e, 0, sizeof(e)) ||
		    memcmp(&e.gid, gid, sizeof(*gid)))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 || attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
			*index = i;
			return 0;
		}
		if (!need_v2 && fallback < 0)
			fallback = i;
	}
	if (fallback < 0)
		return ENOENT;
	*index = fallback;
	return 0;
}

int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	union ibv_gid our_gid;
	const uint8_t *ip;
	int version, ret;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	ah_attr->is_global = 1;
	ah_attr->grh.hop_limit = 0xff;
	version = grh_ip_version(grh, &ip);
	if (version < 0) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (version == 4) {
		ipv4_mapped(&ah_attr->grh.dgid, ip + 12);	/* their source */
		ipv4_mapped(&our_gid, ip + 16);
		ah_attr->grh.traffic_class = ip[1];
	} else {
		uint32_t vtf = be32toh(grh->version_tclass_flow);

		ah_attr->grh.dgid = grh->sgid;
		our_gid = grh->dgid;
		ah_attr->grh.flow_label = vtf & 0xfffff;
		ah_attr->grh.traffic_class = (vtf >> 20) & 0xff;
	}
	ret = find_sgid_index(context, port_num, &our_gid, version == 4,
			      &ah_attr->grh.sgid_index);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
