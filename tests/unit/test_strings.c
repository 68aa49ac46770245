/* SPDX-License-Identifier: MIT */
/*
 * ibv_*_str(): every value, and out-of-range ones.  The expected texts and
 * numbers were read from upstream libibverbs 44 by calling it through a
 * probe for every input in [-260, 300] and at the int extremes.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "unit.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct name {
	int value;		/* the enumerator, from our header */
	int number;		/* what upstream numbers it */
	const char *text;
};

static const struct name node_types[] = {
	{ IBV_NODE_CA, 1, "InfiniBand channel adapter" },
	{ IBV_NODE_SWITCH, 2, "InfiniBand switch" },
	{ IBV_NODE_ROUTER, 3, "InfiniBand router" },
	{ IBV_NODE_RNIC, 4, "iWARP NIC" },
	{ IBV_NODE_USNIC, 5, "usNIC" },
	{ IBV_NODE_USNIC_UDP, 6, "usNIC UDP" },
	{ IBV_NODE_UNSPECIFIED, 7, "unspecified" },
};

static const struct name port_states[] = {
	{ IBV_PORT_NOP, 0, "no state change (NOP)" },
	{ IBV_PORT_DOWN, 1, "down" },
	{ IBV_PORT_INIT, 2, "init" },
	{ IBV_PORT_ARMED, 3, "armed" },
	{ IBV_PORT_ACTIVE, 4, "active" },
	{ IBV_PORT_ACTIVE_DEFER, 5, "active defer" },
};

static const struct name event_types[] = {
	{ IBV_EVENT_CQ_ERR, 0, "CQ error" },
	{ IBV_EVENT_QP_FATAL, 1, "local work queue catastrophic error" },
	{ IBV_EVENT_QP_REQ_ERR, 2, "invalid request local work queue error" },
	{ IBV_EVENT_QP_ACCESS_ERR, 3, "local access violation work queue error" },
	{ IBV_EVENT_COMM_EST, 4, "communication established" },
	{ IBV_EVENT_SQ_DRAINED, 5, "send queue drained" },
	{ IBV_EVENT_PATH_MIG, 6, "path migrated" },
	{ IBV_EVENT_PATH_MIG_ERR, 7, "path migration request error" },
	{ IBV_EVENT_DEVICE_FATAL, 8, "local catastrophic error" },
	{ IBV_EVENT_PORT_ACTIVE, 9, "port active" },
	{ IBV_EVENT_PORT_ERR, 10, "port error" },
	{ IBV_EVENT_LID_CHANGE, 11, "LID change" },
	{ IBV_EVENT_PKEY_CHANGE, 12, "P_Key change" },
	{ IBV_EVENT_SM_CHANGE, 13, "SM change" },
	{ IBV_EVENT_SRQ_ERR, 14, "SRQ catastrophic error" },
	{ IBV_EVENT_SRQ_LIMIT_REACHED, 15, "SRQ limit reached" },
	{ IBV_EVENT_QP_LAST_WQE_REACHED, 16, "last WQE reached" },
	{ IBV_EVENT_CLIENT_REREGISTER, 17, "client reregistration" },
	{ IBV_EVENT_GID_CHANGE, 18, "GID table change" },
	{ IBV_EVENT_WQ_FATAL, 19, "WQ fatal" },
};

static const struct name wc_statuses[] = {
	{ IBV_WC_SUCCESS, 0, "success" },
	{ IBV_WC_LOC_LEN_ERR, 1, "local length error" },
	{ IBV_WC_LOC_QP_OP_ERR, 2, "local QP operation error" },
	{ IBV_WC_LOC_EEC_OP_ERR, 3, "local EE context operation error" },
	{ IBV_WC_LOC_PROT_ERR, 4, "local protection error" },
	{ IBV_WC_WR_FLUSH_ERR, 5, "Work Request Flushed Error" },
	{ IBV_WC_MW_BIND_ERR, 6, "memory management operation error" },
	{ IBV_WC_BAD_RESP_ERR, 7, "bad response error" },
	{ IBV_WC_LOC_ACCESS_ERR, 8, "local access error" },
	{ IBV_WC_REM_INV_REQ_ERR, 9, "remote invalid request error" },
	{ IBV_WC_REM_ACCESS_ERR, 10, "remote access error" },
	{ IBV_WC_REM_OP_ERR, 11, "remote operation error" },
	{ IBV_WC_RETRY_EXC_ERR, 12, "transport retry counter exceeded" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, 13, "RNR retry counter exceeded" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, 14, "local RDD violation error" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, 15, "remote invalid RD request" },
	{ IBV_WC_REM_ABORT_ERR, 16, "aborted error" },
	{ IBV_WC_INV_EECN_ERR, 17, "invalid EE context number" },
	{ IBV_WC_INV_EEC_STATE_ERR, 18, "invalid EE context state" },
	{ IBV_WC_FATAL_ERR, 19, "fatal error" },
	{ IBV_WC_RESP_TIMEOUT_ERR, 20, "response timeout error" },
	{ IBV_WC_GENERAL_ERR, 21, "general error" },
	{ IBV_WC_TM_ERR, 22, "TM error" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, 23, "TM software rendezvous" },
};

typedef const char *(*str_fn)(int value);

static const char *node_type(int v) { return ibv_node_type_str((enum ibv_node_type)v); }
static const char *port_state(int v) { return ibv_port_state_str((enum ibv_port_state)v); }
static const char *event_type(int v) { return ibv_event_type_str((enum ibv_event_type)v); }
static const char *wc_status(int v) { return ibv_wc_status_str((enum ibv_wc_status)v); }

static const struct {
	const char *fn_name;
	str_fn fn;
	const struct name *names;
	size_t count;
} tables[] = {
	{ "ibv_node_type_str", node_type, node_types, N_ELEMS(node_types) },
	{ "ibv_port_state_str", port_state, port_states, N_ELEMS(port_states) },
	{ "ibv_event_type_str", event_type, event_types, N_ELEMS(event_types) },
	{ "ibv_wc_status_str", wc_status, wc_statuses, N_ELEMS(wc_statuses) },
};

static const char *expected(int t, int value)
{
	for (size_t i = 0; i < tables[t].count; i++)
		if (tables[t].names[i].number == value)
			return tables[t].names[i].text;
	return "unknown";
}

/* _i is the index into tables[]: one test per function. */
START_TEST(every_value_named_as_upstream)
{
	for (size_t i = 0; i < tables[_i].count; i++) {
		const struct name *n = &tables[_i].names[i];

		ck_assert_msg(n->value == n->number, "%s: enumerator for \"%s\" is %d, upstream %d",
			      tables[_i].fn_name, n->text, n->value, n->number);
		ck_assert_str_eq(tables[_i].fn(n->value), n->text);
	}
}
END_TEST

START_TEST(out_of_range_is_unknown)
{
	static const int extremes[] = { INT_MIN, INT_MIN + 1, -65536, 65536, INT_MAX - 1, INT_MAX };

	for (int v = -260; v <= 300; v++) {
		const char *s = tables[_i].fn(v);

		ck_assert_msg(s, "%s(%d) returned NULL", tables[_i].fn_name, v);
		ck_assert_msg(!strcmp(s, expected(_i, v)), "%s(%d) = \"%s\", want \"%s\"",
			      tables[_i].fn_name, v, s, expected(_i, v));
	}
	for (size_t i = 0; i < N_ELEMS(extremes); i++)
		ck_assert_str_eq(tables[_i].fn(extremes[i]), "unknown");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strings");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, every_value_named_as_upstream, 0, N_ELEMS(tables));
	tcase_add_loop_test(tc, out_of_range_is_unknown, 0, N_ELEMS(tables));
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
