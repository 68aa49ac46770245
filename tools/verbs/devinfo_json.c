// SPDX-License-Identifier: MIT
/*
 * ibv_devinfo --json: every field of -v, described by
 * ibv_devinfo.schema.json.  Enumerations are {"value", "name"} and bit
 * masks {"value", "names"} with the same words as the text output; GUIDs
 * are strings in the text's form; GIDs print in IPv6 notation.
 */
#include "devinfo.h"

#include <arpa/inet.h>
#include <endian.h>

#include "names.h"

static void json_guid(struct json_writer *w, const char *key, __be64 guid)
{
	uint64_t value = be64toh(guid);
	char text[20];

	snprintf(text, sizeof(text), "%04x:%04x:%04x:%04x",
		 (unsigned int)(value >> 48) & 0xffff, (unsigned int)(value >> 32) & 0xffff,
		 (unsigned int)(value >> 16) & 0xffff, (unsigned int)value & 0xffff);
	json_string(w, key, text);
}

static void json_enum(struct json_writer *w, const char *key, int64_t value, const char *name)
{
	json_begin_object(w, key);
	json_int(w, "value", value);
	json_string(w, "name", name);
	json_end_object(w);
}

static void json_flags(struct json_writer *w, const char *key,
		       const struct flag_table *table, uint64_t value)
{
	json_begin_object(w, key);
	json_uint(w, "value", value);
	json_begin_array(w, "names");
	for (size_t i = 0; i < table->count; i++)
		if (value & table->flags[i].bit)
			json_string(w, NULL, table->flags[i].name);
	json_end_array(w);
	json_end_object(w);
}

static void json_gid(struct json_writer *w, const struct ibv_gid_entry *entry)
{
	char text[INET6_ADDRSTRLEN] = "";

	inet_ntop(AF_INET6, entry->gid.raw, text, sizeof(text));
	json_begin_object(w, NULL);
	json_uint(w, "index", entry->gid_index);
	json_string(w, "gid", text);
	json_string(w, "type", gid_type_name(entry->gid_type));
	json_end_object(w);
}

static void json_port(struct json_writer *w, const struct port_info *port)
{
	const struct ibv_port_attr *p = &port->attr;

	json_begin_object(w, NULL);
	json_uint(w, "port", port->port_num);
	json_enum(w, "state", p->state, port_state_name(p->state));
	json_enum(w, "max_mtu", p->max_mtu, mtu_name(p->max_mtu));
	json_enum(w, "active_mtu", p->active_mtu, mtu_name(p->active_mtu));
	json_uint(w, "sm_lid", p->sm_lid);
	json_uint(w, "port_lid", p->lid);
	json_uint(w, "port_lmc", p->lmc);
	json_enum(w, "link_layer", p->link_layer, link_layer_name(p->link_layer));
	json_uint(w, "max_msg_sz", p->max_msg_sz);
	json_uint(w, "port_cap_flags", p->port_cap_flags);
	json_uint(w, "port_cap_flags2", p->port_cap_flags2);
	json_enum(w, "max_vl_num", p->max_vl_num, vl_name(p->max_vl_num));
	json_uint(w, "bad_pkey_cntr", p->bad_pkey_cntr);
	json_uint(w, "qkey_viol_cntr", p->qkey_viol_cntr);
	json_uint(w, "sm_sl", p->sm_sl);
	json_uint(w, "pkey_tbl_len", p->pkey_tbl_len);
	json_uint(w, "gid_tbl_len", p->gid_tbl_len);
	json_uint(w, "subnet_timeout", p->subnet_timeout);
	json_uint(w, "init_type_reply", p->init_type_reply);
	json_enum(w, "active_width", p->active_width, width_name(p->active_width));
	json_enum(w, "active_speed", p->active_speed, speed_name(p->active_speed));
	json_enum(w, "phys_state", p->phys_state, phys_state_name(p->phys_state));
	json_begin_array(w, "gids");
	for (size_t i = 0; i < port->gid_count; i++)
		json_gid(w, &port->gids[i]);
	json_end_array(w);
	json_end_object(w);
}

static void json_odp(struct json_writer *w, const struct ibv_device_attr_ex *ex)
{
	const struct ibv_odp_caps *odp = &ex->odp_caps;

	json_flags(w, "general_odp_caps", &odp_general_flags, odp->general_caps);
	json_flags(w, "rc_odp_caps", &odp_transport_flags, odp->per_transport_caps.rc_odp_caps);
	json_flags(w, "uc_odp_caps", &odp_transport_flags, odp->per_transport_caps.uc_odp_caps);
	json_flags(w, "ud_odp_caps", &odp_transport_flags, odp->per_transport_caps.ud_odp_caps);
	json_flags(w, "xrc_odp_caps", &odp_transport_flags, ex->xrc_odp_caps);
}

static void json_ex_caps(struct json_writer *w, const struct ibv_device_attr_ex *ex)
{
	json_uint(w, "completion_timestamp_mask", ex->completion_timestamp_mask);
	json_uint(w, "hca_core_clock", ex->hca_core_clock);
	json_flags(w, "raw_packet_caps", &raw_packet_cap_flags, ex->raw_packet_caps);
	json_flags(w, "device_cap_flags_ex", &device_cap_flags, ex->device_cap_flags_ex);
	json_begin_object(w, "tso_caps");
	json_uint(w, "max_tso", ex->tso_caps.max_tso);
	json_flags(w, "supported_qp", &qp_type_flags, ex->tso_caps.supported_qpts);
	json_end_object(w);
	json_begin_object(w, "rss_caps");
	json_uint(w, "max_rwq_indirection_tables", ex->rss_caps.max_rwq_indirection_tables);
	json_uint(w, "max_rwq_indirection_table_size", ex->rss_caps.max_rwq_indirection_table_size);
	json_uint(w, "rx_hash_function", ex->rss_caps.rx_hash_function);
	json_uint(w, "rx_hash_fields_mask", ex->rss_caps.rx_hash_fields_mask);
	json_flags(w, "supported_qp", &qp_type_flags, ex->rss_caps.supported_qpts);
	json_end_object(w);
	json_uint(w, "max_wq_type_rq", ex->max_wq_type_rq);
	json_begin_object(w, "packet_pacing_caps");
	json_uint(w, "qp_rate_limit_min", ex->packet_pacing_caps.qp_rate_limit_min);
	json_uint(w, "qp_rate_limit_max", ex->packet_pacing_caps.qp_rate_limit_max);
	json_flags(w, "supported_qp", &qp_type_flags, ex->packet_pacing_caps.supported_qpts);
	json_end_object(w);
	json_begin_object(w, "tm_caps");
	json_uint(w, "max_rndv_hdr_size", ex->tm_caps.max_rndv_hdr_size);
	json_uint(w, "max_num_tags", ex->tm_caps.max_num_tags);
	json_uint(w, "max_ops", ex->tm_caps.max_ops);
	json_uint(w, "max_sge", ex->tm_caps.max_sge);
	json_flags(w, "flags", &tm_cap_flags, ex->tm_caps.flags);
	json_end_object(w);
	json_begin_object(w, "cq_mod_caps");
	json_uint(w, "max_cq_count", ex->cq_mod_caps.max_cq_count);
	json_uint(w, "max_cq_period", ex->cq_mod_caps.max_cq_period);
	json_end_object(w);
	json_uint(w, "max_dm_size", ex->max_dm_size);
}

void devinfo_print_json(struct json_writer *w, const struct device_info *info)
{
	const struct ibv_device_attr *a = &info->attr.orig_attr;

	json_begin_object(w, NULL);
	json_string(w, "hca_id", ibv_get_device_name(info->device));
	json_enum(w, "transport", info->device->transport_type,
		  transport_name(info->device->transport_type));
	json_string(w, "fw_ver", a->fw_ver);
	json_guid(w, "node_guid", a->node_guid);
	json_guid(w, "sys_image_guid", a->sys_image_guid);
	json_uint(w, "vendor_id", a->vendor_id);
	json_uint(w, "vendor_part_id", a->vendor_part_id);
	json_uint(w, "hw_ver", a->hw_ver);
	json_string(w, "board_id", info->board_id);
	json_uint(w, "phys_port_cnt", a->phys_port_cnt);
	json_uint(w, "max_mr_size", a->max_mr_size);
	json_uint(w, "page_size_cap", a->page_size_cap);
	json_int(w, "max_qp", a->max_qp);
	json_int(w, "max_qp_wr", a->max_qp_wr);
	json_flags(w, "device_cap_flags", &device_cap_flags, a->device_cap_flags);
	json_int(w, "max_sge", a->max_sge);
	json_int(w, "max_sge_rd", a->max_sge_rd);
	json_int(w, "max_cq", a->max_cq);
	json_int(w, "max_cqe", a->max_cqe);
	json_int(w, "max_mr", a->max_mr);
	json_int(w, "max_pd", a->max_pd);
	json_int(w, "max_qp_rd_atom", a->max_qp_rd_atom);
	json_int(w, "max_ee_rd_atom", a->max_ee_rd_atom);
	json_int(w, "max_res_rd_atom", a->max_res_rd_atom);
	json_int(w, "max_qp_init_rd_atom", a->max_qp_init_rd_atom);
	json_int(w, "max_ee_init_rd_atom", a->max_ee_init_rd_atom);
	json_enum(w, "atomic_cap", a->atomic_cap, atomic_cap_name(a->atomic_cap));
	json_int(w, "max_ee", a->max_ee);
	json_int(w, "max_rdd", a->max_rdd);
	json_int(w, "max_mw", a->max_mw);
	json_int(w, "max_raw_ipv6_qp", a->max_raw_ipv6_qp);
	json_int(w, "max_raw_ethy_qp", a->max_raw_ethy_qp);
	json_int(w, "max_mcast_grp", a->max_mcast_grp);
	json_int(w, "max_mcast_qp_attach", a->max_mcast_qp_attach);
	json_int(w, "max_total_mcast_qp_attach", a->max_total_mcast_qp_attach);
	json_int(w, "max_ah", a->max_ah);
	json_int(w, "max_fmr", a->max_fmr);
	json_int(w, "max_map_per_fmr", a->max_map_per_fmr);
	json_int(w, "max_srq", a->max_srq);
	json_int(w, "max_srq_wr", a->max_srq_wr);
	json_int(w, "max_srq_sge", a->max_srq_sge);
	json_uint(w, "max_pkeys", a->max_pkeys);
	json_uint(w, "local_ca_ack_delay", a->local_ca_ack_delay);
	json_odp(w, &info->attr);
	json_ex_caps(w, &info->attr);
	json_int(w, "num_comp_vectors", info->num_comp_vectors);
	json_begin_array(w, "ports");
	for (size_t i = 0; i < info->port_count; i++)
		json_port(w, &info->ports[i]);
	json_end_array(w);
	json_end_object(w);
}
