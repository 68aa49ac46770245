// SPDX-License-Identifier: MIT
#include "names.h"

#include <infiniband/verbs.h>

#define TABLE(array) { array, sizeof(array) / sizeof((array)[0]) }

const char *transport_name(int transport)
{
	switch (transport) {
	case IBV_TRANSPORT_IB: return "InfiniBand";
	case IBV_TRANSPORT_IWARP: return "iWARP";
	case IBV_TRANSPORT_USNIC: return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP: return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
	default: return "invalid transport";
	}
}

const char *port_state_name(int state)
{
	switch (state) {
	case IBV_PORT_NOP: return "PORT_NOP";
	case IBV_PORT_DOWN: return "PORT_DOWN";
	case IBV_PORT_INIT: return "PORT_INIT";
	case IBV_PORT_ARMED: return "PORT_ARMED";
	case IBV_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "PORT_ACTIVE_DEFER";
	default: return "invalid state";
	}
}

const char *mtu_name(int mtu)
{
	switch (mtu) {
	case IBV_MTU_256: return "256";
	case IBV_MTU_512: return "512";
	case IBV_MTU_1024: return "1024";
	case IBV_MTU_2048: return "2048";
	case IBV_MTU_4096: return "4096";
	default: return "invalid MTU";
	}
}

/* Widths and speeds are one-hot codes of the IB PortInfo encoding. */
const char *width_name(uint8_t width)
{
	switch (width) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	default: return "invalid width";
	}
}

const char *speed_name(uint8_t speed)
{
	switch (speed) {
	case 1: return "2.5 Gbps";
	case 2: return "5.0 Gbps";
	case 4: /* QDR */
	case 8: return "10.0 Gbps"; /* FDR10 */
	case 16: return "14.0 Gbps";
	case 32: return "25.0 Gbps";
	case 64: return "50.0 Gbps";
	case 128: return "100.0 Gbps";
	default: return "invalid speed";
	}
}

const char *phys_state_name(uint8_t phys_state)
{
	switch (phys_state) {
	case 1: return "SLEEP";
	case 2: return "POLLING";
	case 3: return "DISABLED";
	case 4: return "PORT_CONFIGURATION TRAINNING";
	case 5: return "LINK_UP";
	case 6: return "LINK_ERROR_RECOVERY";
	case 7: return "PHY TEST";
	default: return "invalid physical state";
	}
}

/* PortInfo's VLCap: 1..5 stand for 1, 2, 4, 8 and 15 data VLs. */
const char *vl_name(uint8_t vl_cap)
{
	switch (vl_cap) {
	case 1: return "1";
	case 2: return "2";
	case 3: return "4";
	case 4: return "8";
	case 5: return "15";
	default: return "invalid value";
	}
}

const char *atomic_cap_name(int atomic_cap)
{
	switch (atomic_cap) {
	case IBV_ATOMIC_NONE: return "ATOMIC_NONE";
	case IBV_ATOMIC_HCA: return "ATOMIC_HCA";
	case IBV_ATOMIC_GLOB: return "ATOMIC_GLOB";
	default: return "invalid atomic capability";
	}
}

const char *link_layer_name(uint8_t link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_UNSPECIFIED:
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "Unknown";
	}
}

const char *gid_type_name(uint32_t gid_type)
{
	switch (gid_type) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	default: return "invalid GID type";
	}
}

static const struct flag_name device_cap_names[] = {
	{ IBV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
	{ IBV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
	{ IBV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
	{ IBV_DEVICE_RAW_MULTI, "RAW_MULTI" },
	{ IBV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
	{ IBV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
	{ IBV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
	{ IBV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
	{ IBV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
	{ IBV_DEVICE_INIT_TYPE, "INIT_TYPE" },
	{ IBV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
	{ IBV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
	{ IBV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
	{ IBV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
	{ IBV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
	{ IBV_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
	{ IBV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
	{ IBV_DEVICE_XRC, "XRC" },
	{ IBV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
	{ IBV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
	{ IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
	{ IBV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
	{ IBV_DEVICE_RAW_SCATTER_FCS, "RAW_SCATTER_FCS" },
	{ IBV_DEVICE_PCI_WRITE_END_PADDING, "PCI_WRITE_END_PADDING" },
};
const struct flag_table device_cap_flags = TABLE(device_cap_names);

static const struct flag_name odp_general_names[] = {
	{ IBV_ODP_SUPPORT, "ODP_SUPPORT" },
	{ IBV_ODP_SUPPORT_IMPLICIT, "ODP_SUPPORT_IMPLICIT" },
};
const struct flag_table odp_general_flags = TABLE(odp_general_names);

static const struct flag_name odp_transport_names[] = {
	{ IBV_ODP_SUPPORT_SEND, "SUPPORT_SEND" },
	{ IBV_ODP_SUPPORT_RECV, "SUPPORT_RECV" },
	{ IBV_ODP_SUPPORT_WRITE, "SUPPORT_WRITE" },
	{ IBV_ODP_SUPPORT_READ, "SUPPORT_READ" },
	{ IBV_ODP_SUPPORT_ATOMIC, "SUPPORT_ATOMIC" },
	{ IBV_ODP_SUPPORT_SRQ_RECV, "SUPPORT_SRQ" },
};
const struct flag_table odp_transport_flags = TABLE(odp_transport_names);

static const struct flag_name raw_packet_cap_names[] = {
	{ IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, "CVLAN_STRIPPING" },
	{ IBV_RAW_PACKET_CAP_SCATTER_FCS, "SCATTER_FCS" },
	{ IBV_RAW_PACKET_CAP_IP_CSUM, "IP_CSUM" },
	{ IBV_RAW_PACKET_CAP_DELAY_DROP, "DELAY_DROP" },
};
const struct flag_table raw_packet_cap_flags = TABLE(raw_packet_cap_names);

static const struct flag_name tm_cap_names[] = {
	{ IBV_TM_CAP_RC, "IBV_TM_CAP_RC" },
};
const struct flag_table tm_cap_flags = TABLE(tm_cap_names);

static const struct flag_name qp_type_names[] = {
	{ 1u << IBV_QPT_RC, "SUPPORT_RC" },
	{ 1u << IBV_QPT_UC, "SUPPORT_UC" },
	{ 1u << IBV_QPT_UD, "SUPPORT_UD" },
	{ 1u << IBV_QPT_RAW_PACKET, "SUPPORT_RAW_PACKET" },
	{ 1u << IBV_QPT_XRC_SEND, "SUPPORT_XRC_SEND" },
	{ 1u << IBV_QPT_XRC_RECV, "SUPPORT_XRC_RECV" },
};
const struct flag_table qp_type_flags = TABLE(qp_type_names);

uint64_t unnamed_flags(const struct flag_table *table, uint64_t value)
{
	for (size_t i = 0; i < table->count; i++)
		value &= ~table->flags[i].bit;
	return value;
}
