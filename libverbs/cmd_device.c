/* SPDX-License-Identifier: MIT */
/* Kernel commands on the context and the device: context setup, device,
 * port and GID queries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* ------------------------------------------------------------------ */
/* Context                                                             */

/* The ioctl path gets no async fd with the context: it is a separate
 * object, and the kernel makes the first one the context's default. */
int vcmd_alloc_async_fd(struct ibv_context *ctx)
{
	struct ib_uverbs_attr *fd;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	fd = vioctl_new(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	ret = vcmd_ioctl_only(ctx, VCMD_ASYNC_EVENT_ALLOC, &c);
	if (!ret)
		ctx->async_fd = vioctl_result(fd);
	return ret;
}

static int get_context_ioctl(struct ibv_context *ctx, const struct verbs_udata *udata)
{
	struct verbs_device *dev = verbs_get_device(ctx->device);
	uint32_t vectors;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	vioctl_out(&c, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &vectors, sizeof(vectors));
	vioctl_out(&c, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &dev->core_support,
		   sizeof(dev->core_support));
	vioctl_udata(&c, udata);
	ret = vioctl_exec(ctx, &c);
	if (!ret)
		ctx->num_comp_vectors = vectors;
	return ret;
}

int verbs_cmd_get_context(struct ibv_context *ctx, const struct verbs_udata *udata)
{
	struct ib_uverbs_get_context req = {};
	struct ib_uverbs_get_context_resp resp;
	int ret;

	/* Over ioctl, async_fd stays -1: the core adds one (FACTS 28). */
	if (vcmd_use_ioctl(ctx, VCMD_GET_CONTEXT)) {
		ret = get_context_ioctl(ctx, udata);
		if (!vcmd_fall_back(ctx, VCMD_GET_CONTEXT, &ret))
			return ret;
	}
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_GET_CONTEXT, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	ctx->async_fd = resp.async_fd;
	ctx->num_comp_vectors = resp.num_comp_vectors;
	return 0;
}

/* An imported context shares the exporter's kernel context: ask about it
 * (the core then adds an async fd of its own). */
int vcmd_query_context(struct ibv_context *ctx, const struct vioctl_chain *link)
{
	struct verbs_device *dev = verbs_get_device(ctx->device);
	uint32_t vectors;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	vioctl_out(&c, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &vectors, sizeof(vectors));
	vioctl_out(&c, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &dev->core_support,
		   sizeof(dev->core_support));
	vioctl_link(&c, link);
	ret = vcmd_ioctl_only(ctx, VCMD_QUERY_CONTEXT, &c);
	if (!ret)
		ctx->num_comp_vectors = vectors;
	return ret;
}

int verbs_cmd_query_context(struct ibv_context *ctx)
{
	return vcmd_query_context(ctx, NULL);
}

/* ------------------------------------------------------------------ */
/* Device                                                              */

static void copy_device_attr(struct ibv_device_attr *a,
			     const struct ib_uverbs_query_device_resp *r)
{
	memset(a, 0, sizeof(*a));
	a->node_guid = r->node_guid;
	a->sys_image_guid = r->sys_image_guid;
	a->max_mr_size = r->max_mr_size;
	a->page_size_cap = r->page_size_cap;
	a->vendor_id = r->vendor_id;
	a->vendor_part_id = r->vendor_part_id;
	a->hw_ver = r->hw_ver;
	a->max_qp = r->max_qp;
	a->max_qp_wr = r->max_qp_wr;
	a->device_cap_flags = r->device_cap_flags;
	a->max_sge = r->max_sge;
	a->max_sge_rd = r->max_sge_rd;
	a->max_cq = r->max_cq;
	a->max_cqe = r->max_cqe;
	a->max_mr = r->max_mr;
	a->max_pd = r->max_pd;
	a->max_qp_rd_atom = r->max_qp_rd_atom;
	a->max_ee_rd_atom = r->max_ee_rd_atom;
	a->max_res_rd_atom = r->max_res_rd_atom;
	a->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	a->max_ee_init_rd_atom = r->max_ee_init_rd_atom;
	a->atomic_cap = r->atomic_cap;
	a->max_ee = r->max_ee;
	a->max_rdd = r->max_rdd;
	a->max_mw = r->max_mw;
	a->max_raw_ipv6_qp = r->max_raw_ipv6_qp;
	a->max_raw_ethy_qp = r->max_raw_ethy_qp;
	a->max_mcast_grp = r->max_mcast_grp;
	a->max_mcast_qp_attach = r->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = r->max_total_mcast_qp_attach;
	a->max_ah = r->max_ah;
	a->max_fmr = r->max_fmr;
	a->max_map_per_fmr = r->max_map_per_fmr;
	a->max_srq = r->max_srq;
	a->max_srq_wr = r->max_srq_wr;
	a->max_srq_sge = r->max_srq_sge;
	a->max_pkeys = r->max_pkeys;
	a->local_ca_ack_delay = r->local_ca_ack_delay;
	a->phys_port_cnt = r->phys_port_cnt;
}

/* Fields past response_length are ones this kernel does not know: they
 * stay zero. */
#define HAS(r, field) \
	((r)->response_length >= offsetof(struct ib_uverbs_ex_query_device_resp, field) + \
				 sizeof((r)->field))

void vcmd_device_attr_from_kern(struct ibv_device_attr_ex *a,
				const struct ib_uverbs_ex_query_device_resp *r)
{
	copy_device_attr(&a->orig_attr, &r->base);
	a->phys_port_cnt_ex = r->base.phys_port_cnt;
	if (HAS(r, odp_caps)) {
		a->odp_caps.general_caps = r->odp_caps.general_caps;
		a->odp_caps.per_transport_caps.rc_odp_caps = r->odp_caps.per_transport_caps.rc_odp_caps;
		a->odp_caps.per_transport_caps.uc_odp_caps = r->odp_caps.per_transport_caps.uc_odp_caps;
		a->odp_caps.per_transport_caps.ud_odp_caps = r->odp_caps.per_transport_caps.ud_odp_caps;
	}
	if (HAS(r, timestamp_mask))
		a->completion_timestamp_mask = r->timestamp_mask;
	if (HAS(r, hca_core_clock))
		a->hca_core_clock = r->hca_core_clock;
	if (HAS(r, device_cap_flags_ex))
		a->device_cap_flags_ex = r->device_cap_flags_ex;
	if (HAS(r, rss_caps)) {
		a->rss_caps.supported_qpts = r->rss_caps.supported_qpts;
		a->rss_caps.max_rwq_indirection_tables = r->rss_caps.max_rwq_indirection_tables;
		a->rss_caps.max_rwq_indirection_table_size = r->rss_caps.max_rwq_indirection_table_size;
	}
	if (HAS(r, max_wq_type_rq))
		a->max_wq_type_rq = r->max_wq_type_rq;
	if (HAS(r, raw_packet_caps))
		a->raw_packet_caps = r->raw_packet_caps;
	if (HAS(r, tm_caps)) {
		a->tm_caps.max_rndv_hdr_size = r->tm_caps.max_rndv_hdr_size;
		a->tm_caps.max_num_tags = r->tm_caps.max_num_tags;
		a->tm_caps.flags = r->tm_caps.flags;
		a->tm_caps.max_ops = r->tm_caps.max_ops;
		a->tm_caps.max_sge = r->tm_caps.max_sge;
	}
	if (HAS(r, cq_moderation_caps)) {
		a->cq_mod_caps.max_cq_count = r->cq_moderation_caps.max_cq_moderation_count;
		a->cq_mod_caps.max_cq_period = r->cq_moderation_caps.max_cq_moderation_period;
	}
	if (HAS(r, max_dm_size))
		a->max_dm_size = r->max_dm_size;
	if (HAS(r, xrc_odp_caps))
		a->xrc_odp_caps = r->xrc_odp_caps;
}

int vcmd_query_device(struct ibv_context *ctx, bool try_ex,
		      struct ib_uverbs_ex_query_device_resp *resp,
		      const struct verbs_udata *udata)
{
	struct ib_uverbs_query_device basic = {};
	int ret = EOPNOTSUPP;

	memset(resp, 0, sizeof(*resp));
	if (try_ex) {
		struct ib_uverbs_ex_query_device req = {};

		ret = vcmd_write(ctx, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				 &req, sizeof(req), resp, sizeof(*resp), udata);
	}
	if (ret != EOPNOTSUPP && ret != ENOSYS)
		return ret;
	/* Kernels before the extended query, or callers who want only the
	 * basic attributes: the basic one. */
	memset(resp, 0, sizeof(*resp));
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &basic, sizeof(basic),
			 &resp->base, sizeof(resp->base), NULL);
	if (!ret)
		resp->response_length = sizeof(resp->base);
	return ret;
}

int verbs_cmd_query_device(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size,
			   uint64_t *raw_fw_ver, const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_query_device_resp resp;
	struct ibv_device_attr_ex full = {};
	int ret;

	if ((input && input->comp_mask) || attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	ret = vcmd_query_device(ctx, true, &resp, udata);
	if (ret)
		return ret;
	vcmd_device_attr_from_kern(&full, &resp);
	if (raw_fw_ver)
		*raw_fw_ver = resp.base.fw_ver;
	/* The caller's struct may be older (shorter) or newer (longer) than
	 * ours: fields we do not know read as zero. */
	if (attr_size <= sizeof(full)) {
		memcpy(attr, &full, attr_size);
	} else {
		memcpy(attr, &full, sizeof(full));
		memset((char *)attr + sizeof(full), 0, attr_size - sizeof(full));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Port                                                                */

static void copy_port_attr(struct ibv_port_attr *a, const struct ib_uverbs_query_port_resp *r)
{
	memset(a, 0, sizeof(*a));
	a->state = r->state;
	a->max_mtu = r->max_mtu;
	a->active_mtu = r->active_mtu;
	a->gid_tbl_len = r->gid_tbl_len;
	a->port_cap_flags = r->port_cap_flags;
	a->max_msg_sz = r->max_msg_sz;
	a->bad_pkey_cntr = r->bad_pkey_cntr;
	a->qkey_viol_cntr = r->qkey_viol_cntr;
	a->pkey_tbl_len = r->pkey_tbl_len;
	a->lid = r->lid;
	a->sm_lid = r->sm_lid;
	a->lmc = r->lmc;
	a->max_vl_num = r->max_vl_num;
	a->sm_sl = r->sm_sl;
	a->subnet_timeout = r->subnet_timeout;
	a->init_type_reply = r->init_type_reply;
	a->active_width = r->active_width;
	a->active_speed = r->active_speed;
	a->phys_state = r->phys_state;
	a->link_layer = r->link_layer;
	a->flags = r->flags;
}

int verbs_cmd_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct ib_uverbs_query_port req = { .port_num = port };
	struct ib_uverbs_query_port_resp_ex resp = {};
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_QUERY_PORT)) {
		struct vioctl c;

		vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		vioctl_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, port);
		vioctl_out(&c, UVERBS_ATTR_QUERY_PORT_RESP, &resp, sizeof(resp));
		ret = vioctl_exec(ctx, &c);
		if (!vcmd_fall_back(ctx, VCMD_QUERY_PORT, &ret)) {
			if (!ret) {
				copy_port_attr(attr, &resp.legacy_resp);
				attr->port_cap_flags2 = resp.port_cap_flags2;
			}
			return ret;
		}
	}
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_QUERY_PORT, &req, sizeof(req),
			 &resp.legacy_resp, sizeof(resp.legacy_resp), NULL);
	if (!ret)
		copy_port_attr(attr, &resp.legacy_resp);
	return ret;
}

/* ------------------------------------------------------------------ */
/* GIDs: ioctl only; callers read sysfs when the kernel cannot answer. */

static void copy_gid_entry(struct ibv_gid_entry *e, const struct ib_uverbs_gid_entry *k)
{
	memcpy(e->gid.raw, k->gid, sizeof(e->gid.raw));
	e->gid_index = k->gid_index;
	e->port_num = k->port_num;
	e->gid_type = k->gid_type;
	e->ndev_ifindex = k->netdev_ifindex;
}

int vcmd_query_gid_entry(struct ibv_context *ctx, uint32_t port, uint32_t index,
			 struct ibv_gid_entry *entry)
{
	struct ib_uverbs_gid_entry k;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
	vioctl_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port);
	vioctl_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index);
	vioctl_in_u32(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0);
	vioctl_out(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &k, sizeof(k));
	ret = vcmd_ioctl_only(ctx, VCMD_QUERY_GID, &c);
	if (!ret)
		copy_gid_entry(entry, &k);
	return ret;
}

int vcmd_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			 size_t max_entries, size_t *num_entries)
{
	struct ib_uverbs_gid_entry *k;
	uint64_t num = 0;
	struct vioctl c;
	int ret;

	if (!vcmd_use_ioctl(ctx, VCMD_QUERY_GID))
		return EOPNOTSUPP;
	k = calloc(max_entries ? max_entries : 1, sizeof(*k));
	if (!k)
		return ENOMEM;
	vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	vioctl_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, sizeof(*k));
	vioctl_in_u32(&c, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0);
	vioctl_out(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, k, max_entries * sizeof(*k));
	vioctl_out(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	ret = vcmd_ioctl_only(ctx, VCMD_QUERY_GID, &c);
	if (!ret) {
		for (uint64_t i = 0; i < num && i < max_entries; i++)
			copy_gid_entry(&entries[i], &k[i]);
		*num_entries = num;
	}
	free(k);
	return ret;
}
