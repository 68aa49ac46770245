// SPDX-License-Identifier: MIT
/*
 * ibv_devinfo's text output, byte for byte upstream's 44: tabs align the
 * values, enumerations print as "NAME (number)".
 */
#include "devinfo.h"

#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>

#include "names.h"

static void print_guid(const char *label, __be64 guid)
{
	uint64_t value = be64toh(guid);

	printf("\t%s%04x:%04x:%04x:%04x\n", label,
	       (unsigned int)(value >> 48) & 0xffff, (unsigned int)(value >> 32) & 0xffff,
	       (unsigned int)(value >> 16) & 0xffff, (unsigned int)value & 0xffff);
}

/* One named flag a line, deep under its label; NONE when nothing is set. */
static void print_flags(const struct flag_table *table, uint64_t value, const char *none)
{
	uint64_t unnamed = unnamed_flags(table, value);

	if (!value && none)
		printf("\t\t\t\t\t%s\n", none);
	for (size_t i = 0; i < table->count; i++)
		if (value & table->flags[i].bit)
			printf("\t\t\t\t\t%s\n", table->flags[i].name);
	if (unnamed)
		printf("\t\t\t\t\tUnknown flags: 0x%" PRIX64 "\n", unnamed);
}

static void print_supported_qps(uint32_t qp_types)
{
	printf("\t\tsupported_qp:\n");
	print_flags(&qp_type_flags, qp_types, NULL);
}

static void print_device_verbose(const struct device_info *info)
{
	const struct ibv_device_attr_ex *ex = &info->attr;
	const struct ibv_device_attr *a = &ex->orig_attr;

	printf("\tmax_mr_size:\t\t\t0x%" PRIx64 "\n", a->max_mr_size);
	printf("\tpage_size_cap:\t\t\t0x%" PRIx64 "\n", a->page_size_cap);
	printf("\tmax_qp:\t\t\t\t%d\n", a->max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", a->max_qp_wr);
	printf("\tdevice_cap_flags:\t\t0x%08x\n", a->device_cap_flags);
	print_flags(&device_cap_flags, a->device_cap_flags, NULL);
	printf("\tmax_sge:\t\t\t%d\n", a->max_sge);
	printf("\tmax_sge_rd:\t\t\t%d\n", a->max_sge_rd);
	printf("\tmax_cq:\t\t\t\t%d\n", a->max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", a->max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", a->max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", a->max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", a->max_qp_rd_atom);
	printf("\tmax_ee_rd_atom:\t\t\t%d\n", a->max_ee_rd_atom);
	printf("\tmax_res_rd_atom:\t\t%d\n", a->max_res_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", a->max_qp_init_rd_atom);
	printf("\tmax_ee_init_rd_atom:\t\t%d\n", a->max_ee_init_rd_atom);
	printf("\tatomic_cap:\t\t\t%s (%d)\n", atomic_cap_name(a->atomic_cap), a->atomic_cap);
	printf("\tmax_ee:\t\t\t\t%d\n", a->max_ee);
	printf("\tmax_rdd:\t\t\t%d\n", a->max_rdd);
	printf("\tmax_mw:\t\t\t\t%d\n", a->max_mw);
	printf("\tmax_raw_ipv6_qp:\t\t%d\n", a->max_raw_ipv6_qp);
	printf("\tmax_raw_ethy_qp:\t\t%d\n", a->max_raw_ethy_qp);
	printf("\tmax_mcast_grp:\t\t\t%d\n", a->max_mcast_grp);
	printf("\tmax_mcast_qp_attach:\t\t%d\n", a->max_mcast_qp_attach);
	printf("\tmax_total_mcast_qp_attach:\t%d\n", a->max_total_mcast_qp_attach);
	printf("\tmax_ah:\t\t\t\t%d\n", a->max_ah);
	printf("\tmax_fmr:\t\t\t%d\n", a->max_fmr);
	if (a->max_fmr)
		printf("\tmax_map_per_fmr:\t\t%d\n", a->max_map_per_fmr);
	printf("\tmax_srq:\t\t\t%d\n", a->max_srq);
	if (a->max_srq) {
		printf("\tmax_srq_wr:\t\t\t%d\n", a->max_srq_wr);
		printf("\tmax_srq_sge:\t\t\t%d\n", a->max_srq_sge);
	}
	printf("\tmax_pkeys:\t\t\t%d\n", a->max_pkeys);
	printf("\tlocal_ca_ack_delay:\t\t%d\n", a->local_ca_ack_delay);

	printf("\tgeneral_odp_caps:\n");
	print_flags(&odp_general_flags, ex->odp_caps.general_caps, NULL);
	printf("\trc_odp_caps:\n");
	print_flags(&odp_transport_flags, ex->odp_caps.per_transport_caps.rc_odp_caps, "NO SUPPORT");
	printf("\tuc_odp_caps:\n");
	print_flags(&odp_transport_flags, ex->odp_caps.per_transport_caps.uc_odp_caps, "NO SUPPORT");
	printf("\tud_odp_caps:\n");
	print_flags(&odp_transport_flags, ex->odp_caps.per_transport_caps.ud_odp_caps, "NO SUPPORT");
	printf("\txrc_odp_caps:\n");
	print_flags(&odp_transport_flags, ex->xrc_odp_caps, "NO SUPPORT");

	if (ex->completion_timestamp_mask)
		printf("\tcompletion timestamp_mask:\t\t\t0x%016" PRIx64 "\n",
		       ex->completion_timestamp_mask);
	else
		printf("\tcompletion_timestamp_mask not supported\n");
	if (ex->hca_core_clock)
		printf("\thca_core_clock:\t\t\t%" PRIu64 "kHZ\n", ex->hca_core_clock);
	else
		printf("\tcore clock not supported\n");
	if (ex->raw_packet_caps) {
		printf("\traw packet caps:\n");
		print_flags(&raw_packet_cap_flags, ex->raw_packet_caps, NULL);
	}

	printf("\tdevice_cap_flags_ex:\t\t0x%" PRIX64 "\n", ex->device_cap_flags_ex);
	/* the low half was named under device_cap_flags */
	print_flags(&device_cap_flags, ex->device_cap_flags_ex >> 32 << 32, NULL);

	printf("\ttso_caps:\n");
	printf("\t\tmax_tso:\t\t\t%u\n", ex->tso_caps.max_tso);
	if (ex->tso_caps.max_tso)
		print_supported_qps(ex->tso_caps.supported_qpts);

	printf("\trss_caps:\n");
	printf("\t\tmax_rwq_indirection_tables:\t\t\t%u\n", ex->rss_caps.max_rwq_indirection_tables);
	printf("\t\tmax_rwq_indirection_table_size:\t\t\t%u\n", ex->rss_caps.max_rwq_indirection_table_size);
	printf("\t\trx_hash_function:\t\t\t\t0x%x\n", ex->rss_caps.rx_hash_function);
	printf("\t\trx_hash_fields_mask:\t\t\t\t0x%" PRIx64 "\n", ex->rss_caps.rx_hash_fields_mask);
	if (ex->rss_caps.max_rwq_indirection_tables)
		print_supported_qps(ex->rss_caps.supported_qpts);
	printf("\tmax_wq_type_rq:\t\t\t%u\n", ex->max_wq_type_rq);

	printf("\tpacket_pacing_caps:\n");
	printf("\t\tqp_rate_limit_min:\t%ukbps\n", ex->packet_pacing_caps.qp_rate_limit_min);
	printf("\t\tqp_rate_limit_max:\t%ukbps\n", ex->packet_pacing_caps.qp_rate_limit_max);
	if (ex->packet_pacing_caps.qp_rate_limit_max)
		print_supported_qps(ex->packet_pacing_caps.supported_qpts);

	if (ex->tm_caps.max_num_tags) {
		printf("\ttm_caps:\n");
		printf("\t\tmax_rndv_hdr_size:\t\t%u\n", ex->tm_caps.max_rndv_hdr_size);
		printf("\t\tmax_num_tags:\t\t\t%u\n", ex->tm_caps.max_num_tags);
		printf("\t\tmax_ops:\t\t\t%u\n", ex->tm_caps.max_ops);
		printf("\t\tmax_sge:\t\t\t%u\n", ex->tm_caps.max_sge);
		printf("\t\tflags:\n");
		print_flags(&tm_cap_flags, ex->tm_caps.flags, NULL);
	} else {
		printf("\ttag matching not supported\n");
	}
	if (ex->cq_mod_caps.max_cq_count && ex->cq_mod_caps.max_cq_period) {
		printf("\tcq moderation caps:\n");
		printf("\t\tmax_cq_count:\t%u\n", ex->cq_mod_caps.max_cq_count);
		printf("\t\tmax_cq_period:\t%u us\n\n", ex->cq_mod_caps.max_cq_period);
	}
	if (ex->max_dm_size)
		printf("\tmaximum available device memory:\t%" PRIu64 "Bytes\n\n", ex->max_dm_size);
	printf("\tnum_comp_vectors:\t\t%d\n", info->num_comp_vectors);
}

/* RoCE v2 GIDs are IP addresses and print as such; IB and RoCE v1 ones as
 * eight groups of four hex digits; Ethernet ports name the GID type. */
static void print_gid(const struct ibv_gid_entry *entry, uint8_t link_layer)
{
	const uint8_t *raw = entry->gid.raw;
	char text[INET6_ADDRSTRLEN];

	printf("\t\t\tGID[%3u]:\t\t", entry->gid_index);
	if (entry->gid_type == IBV_GID_TYPE_ROCE_V2 &&
	    inet_ntop(AF_INET6, raw, text, sizeof(text)))
		fputs(text, stdout);
	else
		for (int i = 0; i < 16; i += 2)
			printf("%02x%02x%s", raw[i], raw[i + 1], i < 14 ? ":" : "");
	if (link_layer == IBV_LINK_LAYER_ETHERNET)
		printf(", %s", gid_type_name(entry->gid_type));
	printf("\n");
}

/* The physical state and the GIDs are InfiniBand (and RoCE) notions:
 * upstream leaves them out for other transports (siw0 reports both). */
static void print_port(const struct port_info *port, bool ib_transport, bool verbose)
{
	const struct ibv_port_attr *p = &port->attr;

	printf("\t\tport:\t%u\n", port->port_num);
	printf("\t\t\tstate:\t\t\t%s (%d)\n", port_state_name(p->state), p->state);
	printf("\t\t\tmax_mtu:\t\t%s (%d)\n", mtu_name(p->max_mtu), p->max_mtu);
	printf("\t\t\tactive_mtu:\t\t%s (%d)\n", mtu_name(p->active_mtu), p->active_mtu);
	printf("\t\t\tsm_lid:\t\t\t%u\n", p->sm_lid);
	printf("\t\t\tport_lid:\t\t%u\n", p->lid);
	printf("\t\t\tport_lmc:\t\t0x%02x\n", p->lmc);
	printf("\t\t\tlink_layer:\t\t%s\n", link_layer_name(p->link_layer));
	if (!verbose) {
		printf("\n");
		return;
	}
	printf("\t\t\tmax_msg_sz:\t\t0x%x\n", p->max_msg_sz);
	printf("\t\t\tport_cap_flags:\t\t0x%08x\n", p->port_cap_flags);
	printf("\t\t\tport_cap_flags2:\t0x%04x\n", p->port_cap_flags2);
	printf("\t\t\tmax_vl_num:\t\t%s (%u)\n", vl_name(p->max_vl_num), p->max_vl_num);
	printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", p->bad_pkey_cntr);
	printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", p->qkey_viol_cntr);
	printf("\t\t\tsm_sl:\t\t\t%u\n", p->sm_sl);
	printf("\t\t\tpkey_tbl_len:\t\t%u\n", p->pkey_tbl_len);
	printf("\t\t\tgid_tbl_len:\t\t%d\n", p->gid_tbl_len);
	printf("\t\t\tsubnet_timeout:\t\t%u\n", p->subnet_timeout);
	printf("\t\t\tinit_type_reply:\t%u\n", p->init_type_reply);
	printf("\t\t\tactive_width:\t\t%s (%u)\n", width_name(p->active_width), p->active_width);
	printf("\t\t\tactive_speed:\t\t%s (%u)\n", speed_name(p->active_speed), p->active_speed);
	if (ib_transport) {
		printf("\t\t\tphys_state:\t\t%s (%u)\n", phys_state_name(p->phys_state), p->phys_state);
		for (size_t i = 0; i < port->gid_count; i++)
			print_gid(&port->gids[i], p->link_layer);
	}
	printf("\n");
}

void devinfo_print_text(const struct device_info *info, bool verbose)
{
	const struct ibv_device_attr *a = &info->attr.orig_attr;

	printf("hca_id:\t%s\n", ibv_get_device_name(info->device));
	printf("\ttransport:\t\t\t%s (%d)\n", transport_name(info->device->transport_type),
	       info->device->transport_type);
	if (a->fw_ver[0])
		printf("\tfw_ver:\t\t\t\t%s\n", a->fw_ver);
	print_guid("node_guid:\t\t\t", a->node_guid);
	print_guid("sys_image_guid:\t\t\t", a->sys_image_guid);
	printf("\tvendor_id:\t\t\t0x%04x\n", a->vendor_id);
	printf("\tvendor_part_id:\t\t\t%u\n", a->vendor_part_id);
	printf("\thw_ver:\t\t\t\t0x%X\n", a->hw_ver);
	if (info->board_id[0])
		printf("\tboard_id:\t\t\t%s\n", info->board_id);
	printf("\tphys_port_cnt:\t\t\t%u\n", a->phys_port_cnt);
	if (verbose)
		print_device_verbose(info);
	for (size_t i = 0; i < info->port_count; i++)
		print_port(&info->ports[i],
			   info->device->transport_type == IBV_TRANSPORT_IB, verbose);
}
