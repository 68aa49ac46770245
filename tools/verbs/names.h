/* SPDX-License-Identifier: MIT */
/*
 * The words ibv_devinfo prints for the numbers the verbs return, shared by
 * its text and JSON output so that both always say the same.  A value no
 * table knows gets the "invalid ..." word upstream's tool prints for it.
 */
#ifndef TOOLS_VERBS_NAMES_H
#define TOOLS_VERBS_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct flag_name {
	uint64_t bit;
	const char *name;
};

struct flag_table {
	const struct flag_name *flags;
	size_t count;
};

const char *transport_name(int transport);
/* ibv_port_state_str()'s words are not the ones ibv_devinfo prints. */
const char *port_state_name(int state);
const char *mtu_name(int mtu);
const char *width_name(uint8_t width);
const char *speed_name(uint8_t speed);
const char *phys_state_name(uint8_t phys_state);
const char *vl_name(uint8_t vl_cap);
const char *atomic_cap_name(int atomic_cap);
const char *link_layer_name(uint8_t link_layer);
const char *gid_type_name(uint32_t gid_type);

/* The device capability bits: those of the 32-bit device_cap_flags and
 * those only device_cap_flags_ex carries (bit 32 and up). */
extern const struct flag_table device_cap_flags;
extern const struct flag_table odp_general_flags;
extern const struct flag_table odp_transport_flags;
extern const struct flag_table raw_packet_cap_flags;
extern const struct flag_table tm_cap_flags;
/* A QP type bitmask (bit = enum ibv_qp_type): tso, rss, packet pacing. */
extern const struct flag_table qp_type_flags;

/* The bits of VALUE that TABLE has no name for. */
uint64_t unnamed_flags(const struct flag_table *table, uint64_t value);

#endif
