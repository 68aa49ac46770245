/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on flow steering rules and ESP flow actions (FACTS
 * section H).  Only Ethernet NICs with a steering engine (mlx5, mlx4)
 * have them: rxe and siw refuse flows, so the test guests cannot make one.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* ------------------------------------------------------------------ */
/* Steering rules                                                      */

enum {
	/* The largest kernel spec: what one application spec can become. */
	MAX_KERN_SPEC = sizeof(struct ib_uverbs_flow_spec_ipv6),
	/* The fields of struct ibv_flow_ipv6_filter, without its padding. */
	IPV6_FILTER_LEN = offsetof(struct ibv_flow_ipv6_filter, hop_limit) + 1,
};

/* The size of an application spec of this type (without the INNER
 * bit), or 0 for a type the kernel does not know. */
static size_t user_spec_size(uint32_t type)
{
	const struct ibv_flow_spec *s = NULL;

	switch (type) {
	case IBV_FLOW_SPEC_ETH: return sizeof(s->eth);
	case IBV_FLOW_SPEC_IPV4: return sizeof(s->ipv4);
	case IBV_FLOW_SPEC_IPV4_EXT: return sizeof(s->ipv4_ext);
	case IBV_FLOW_SPEC_IPV6: return sizeof(s->ipv6);
	case IBV_FLOW_SPEC_ESP: return sizeof(s->esp);
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP: return sizeof(s->tcp_udp);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL: return sizeof(s->tunnel);
	case IBV_FLOW_SPEC_GRE: return sizeof(s->gre);
	case IBV_FLOW_SPEC_MPLS: return sizeof(s->mpls);
	case IBV_FLOW_SPEC_ACTION_TAG: return sizeof(s->flow_tag);
	case IBV_FLOW_SPEC_ACTION_DROP: return sizeof(s->drop);
	case IBV_FLOW_SPEC_ACTION_HANDLE: return sizeof(s->handle);
	case IBV_FLOW_SPEC_ACTION_COUNT: return sizeof(s->flow_count);
	}
	return 0;
}

/* A header spec: the kernel's header, then value and mask, each in a
 * filter of kern_len bytes whose leading user_len come from the
 * application (the rest stays zero).  Its size. */
static size_t filter_spec(void *out, const void *val, const void *mask, size_t user_len,
			  size_t kern_len)
{
	char *filters = (char *)out + sizeof(struct ib_uverbs_flow_spec_hdr);

	memcpy(filters, val, user_len);
	memcpy(filters + kern_len, mask, user_len);
	return sizeof(struct ib_uverbs_flow_spec_hdr) + 2 * kern_len;
}

/* An action carrying one 32-bit value: a tag, or the handle of the
 * object it names (a flow action, counters). */
static size_t u32_action_spec(void *out, uint32_t value)
{
	struct ib_uverbs_flow_spec_action_handle *k = out;

	k->handle = value;
	return sizeof(*k);
}

static_assert(offsetof(struct ib_uverbs_flow_spec_action_tag, tag_id) ==
	      offsetof(struct ib_uverbs_flow_spec_action_handle, handle), "one layout");
static_assert(sizeof(struct ib_uverbs_flow_spec_action_tag) ==
	      sizeof(struct ib_uverbs_flow_spec_action_handle), "one layout");
static_assert(offsetof(struct ib_uverbs_flow_spec_action_count, handle) ==
	      offsetof(struct ib_uverbs_flow_spec_action_handle, handle), "one layout");
static_assert(sizeof(struct ib_uverbs_flow_spec_action_count) ==
	      sizeof(struct ib_uverbs_flow_spec_action_handle), "one layout");

/*
 * One application spec, already checked by user_spec_size(), in the
 * kernel's form (<rdma/ib_user_verbs.h>) at out, whose room is zeroed:
 * its size.  The kernel's filters have every field of the application's,
 * so none is ever dropped (upstream's EOPNOTSUPP for mask bytes the
 * kernel cannot take never arises).  The plain IPv4 spec keeps its short
 * filter: the kernel takes the size it is given.
 */
static size_t kern_spec(const struct ibv_flow_spec *s, void *out)
{
	const struct ib_uverbs_flow_spec_ipv6 *v6 = NULL;
	const struct ib_uverbs_flow_spec_ipv4 *v4 = NULL;
	const struct ib_uverbs_flow_spec_eth *eth = NULL;
	const struct ib_uverbs_flow_spec_gre *gre = NULL;
	struct ib_uverbs_flow_spec_hdr *hdr = out;
	size_t len = sizeof(*hdr);

	switch (s->hdr.type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		len = filter_spec(out, &s->eth.val, &s->eth.mask, sizeof(s->eth.val),
				  sizeof(eth->val));
		break;
	case IBV_FLOW_SPEC_IPV4:
		len = filter_spec(out, &s->ipv4.val, &s->ipv4.mask, sizeof(s->ipv4.val),
				  sizeof(s->ipv4.val));
		break;
	case IBV_FLOW_SPEC_IPV4_EXT:
		/* The kernel knows it as its (full) IPv4 spec. */
		hdr->type = IBV_FLOW_SPEC_IPV4;
		len = filter_spec(out, &s->ipv4_ext.val, &s->ipv4_ext.mask,
				  sizeof(s->ipv4_ext.val), sizeof(v4->val));
		break;
	case IBV_FLOW_SPEC_IPV6:
		/* Not the application's padding byte after hop_limit: the
		 * kernel refuses a mask with bits in its reserved byte. */
		len = filter_spec(out, &s->ipv6.val, &s->ipv6.mask, IPV6_FILTER_LEN,
				  sizeof(v6->val));
		break;
	case IBV_FLOW_SPEC_ESP:
		len = filter_spec(out, &s->esp.val, &s->esp.mask, sizeof(s->esp.val),
				  sizeof(s->esp.val));
		break;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		len = filter_spec(out, &s->tcp_udp.val, &s->tcp_udp.mask,
				  sizeof(s->tcp_udp.val), sizeof(s->tcp_udp.val));
		break;
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		len = filter_spec(out, &s->tunnel.val, &s->tunnel.mask, sizeof(s->tunnel.val),
				  sizeof(s->tunnel.val));
		break;
	case IBV_FLOW_SPEC_GRE:
		len = filter_spec(out, &s->gre.val, &s->gre.mask, sizeof(s->gre.val),
				  sizeof(gre->val));
		break;
	case IBV_FLOW_SPEC_MPLS:
		len = filter_spec(out, &s->mpls.val, &s->mpls.mask, sizeof(s->mpls.val),
				  sizeof(s->mpls.val));
		break;
	case IBV_FLOW_SPEC_ACTION_TAG:
		len = u32_action_spec(out, s->flow_tag.tag_id);
		break;
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		len = u32_action_spec(out, container_of(s->handle.action, struct verbs_flow_action,
						    action)->handle);
		break;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		len = u32_action_spec(out, container_of(s->flow_count.counters,
						    struct verbs_counters, counters)->handle);
		break;
	}
	if (!hdr->type)
		hdr->type = s->hdr.type;
	else
		hdr->type |= s->hdr.type & IBV_FLOW_SPEC_INNER;
	hdr->size = len;
	return len;
}

/* The request: struct ib_uverbs_create_flow, then the specs that follow
 * flow_attr in the kernel's forms.  *len gets its length. */
static int flow_request(const struct ibv_flow_attr *attr, struct ib_uverbs_create_flow **req,
			size_t *len)
{
	const char *spec = (const char *)(attr + 1);
	struct ib_uverbs_create_flow *r;
	char *out;

	r = calloc(1, sizeof(*r) + (size_t)attr->num_of_specs * MAX_KERN_SPEC);
	if (!r)
		return ENOMEM;
	out = (char *)(r + 1);
	for (unsigned int i = 0; i < attr->num_of_specs; i++) {
		struct ibv_flow_spec s;
		size_t need;

		/* Applications pack specs back to back (a packed struct after
		 * the 20-byte attr): read each into an aligned copy. */
		memcpy(&s.hdr, spec, sizeof(s.hdr));
		need = user_spec_size(s.hdr.type & ~IBV_FLOW_SPEC_INNER);
		if (!need || s.hdr.size < need) {
			free(r);
			return EINVAL;
		}
		memcpy(&s, spec, need);
		out += kern_spec(&s, out);
		spec += s.hdr.size;
	}
	r->flow_attr.type = attr->type;
	r->flow_attr.size = sizeof(r->flow_attr) + (out - (char *)(r + 1));
	r->flow_attr.priority = attr->priority;
	r->flow_attr.num_of_specs = attr->num_of_specs;
	r->flow_attr.port = attr->port;
	r->flow_attr.flags = attr->flags;
	*req = r;
	*len = out - (char *)r;
	return 0;
}

int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size)
{
	/* The provider's bytes follow the specs. */
	struct verbs_udata udata = verbs_plugin_udata(ucmd, 0, ucmd_size, NULL, 0, 0);
	struct ib_uverbs_create_flow *req;
	size_t len;
	int ret;

	ret = flow_request(flow_attr, &req, &len);
	if (ret)
		return verbs_plugin_result(ret);
	ret = verbs_cmd_create_flow(qp, flow_id, req, len, &udata);
	free(req);
	return verbs_plugin_result(ret);
}

int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	return verbs_plugin_result(verbs_cmd_destroy_flow(flow_id));
}

/* ------------------------------------------------------------------ */
/* ESP flow actions (ioctl only, FACTS 42)                             */

int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	uint32_t handle;
	int ret;

	ret = verbs_plugin_link(&links, driver, &chain);
	if (!ret)
		ret = verbs_cmd_create_flow_action_esp(ctx, attr, &handle, chain);
	if (ret)
		return verbs_plugin_result(ret);
	flow_action->action.context = ctx;
	flow_action->type = IBV_FLOW_ACTION_ESP;
	flow_action->handle = handle;
	return 0;
}

int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	int ret;

	ret = verbs_plugin_link(&links, driver, &chain);
	if (!ret)
		ret = verbs_cmd_modify_flow_action_esp(flow_action->action.context,
						       flow_action->handle, attr, chain);
	return verbs_plugin_result(ret);
}

int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	return verbs_plugin_result(verbs_cmd_destroy_flow_action(action->action.context,
								 action->handle));
}
