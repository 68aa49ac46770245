/* SPDX-License-Identifier: MIT */
/*
 * What a plugin context's 76 op slots hold before the plugin fills them
 * (FACTS 34, the "core default" column of ops-map.txt): installed through
 * verbs_set_ops() like the plugin's own, so neither the private copy nor
 * a public slot is ever NULL.
 */
#include <errno.h>
#include <stddef.h>

#include "plugins.h"

/* Placeholders ignore what they are given. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static int no_advise_mr(struct ibv_pd *p0, enum ib_uverbs_advise_mr_advice p1, uint32_t p2, struct ibv_sge *p3, uint32_t p4)
{
	return EOPNOTSUPP;
}

static struct ibv_dm *no_alloc_dm(struct ibv_context *p0, struct ibv_alloc_dm_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mw *no_alloc_mw(struct ibv_pd *p0, enum ibv_mw_type p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mr *no_alloc_null_mr(struct ibv_pd *p0)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_pd *no_alloc_parent_domain(struct ibv_context *p0, struct ibv_parent_domain_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_pd *no_alloc_pd(struct ibv_context *p0)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_td *no_alloc_td(struct ibv_context *p0, struct ibv_td_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static void no_async_event(struct ibv_context *p0, struct ibv_async_event *p1)
{
}

static int no_attach_counters_point_flow(struct ibv_counters *p0, struct ibv_counter_attach_attr *p1, struct ibv_flow *p2)
{
	return EOPNOTSUPP;
}

static int no_attach_mcast(struct ibv_qp *p0, const union ibv_gid *p1, uint16_t p2)
{
	return EOPNOTSUPP;
}

static int no_bind_mw(struct ibv_qp *p0, struct ibv_mw *p1, struct ibv_mw_bind *p2)
{
	return EOPNOTSUPP;
}

static int no_close_xrcd(struct ibv_xrcd *p0)
{
	return EOPNOTSUPP;
}

static void no_cq_event(struct ibv_cq *p0)
{
}

static struct ibv_ah *no_create_ah(struct ibv_pd *p0, struct ibv_ah_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_counters *no_create_counters(struct ibv_context *p0, struct ibv_counters_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_cq *no_create_cq(struct ibv_context *p0, int p1, struct ibv_comp_channel *p2, int p3)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_cq_ex *no_create_cq_ex(struct ibv_context *p0, struct ibv_cq_init_attr_ex *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_flow *no_create_flow(struct ibv_qp *p0, struct ibv_flow_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_flow_action *no_create_flow_action_esp(struct ibv_context *p0, struct ibv_flow_action_esp_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_qp *no_create_qp(struct ibv_pd *p0, struct ibv_qp_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_qp *no_create_qp_ex(struct ibv_context *p0, struct ibv_qp_init_attr_ex *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_rwq_ind_table *no_create_rwq_ind_table(struct ibv_context *p0, struct ibv_rwq_ind_table_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_srq *no_create_srq(struct ibv_pd *p0, struct ibv_srq_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_srq *no_create_srq_ex(struct ibv_context *p0, struct ibv_srq_init_attr_ex *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_wq *no_create_wq(struct ibv_context *p0, struct ibv_wq_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_dealloc_mw(struct ibv_mw *p0)
{
	return EOPNOTSUPP;
}

static int no_dealloc_pd(struct ibv_pd *p0)
{
	return EOPNOTSUPP;
}

static int no_dealloc_td(struct ibv_td *p0)
{
	return EOPNOTSUPP;
}

static int no_dereg_mr(struct verbs_mr *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_ah(struct ibv_ah *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_counters(struct ibv_counters *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_cq(struct ibv_cq *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_flow(struct ibv_flow *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_flow_action(struct ibv_flow_action *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_qp(struct ibv_qp *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_rwq_ind_table(struct ibv_rwq_ind_table *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_srq(struct ibv_srq *p0)
{
	return EOPNOTSUPP;
}

static int no_destroy_wq(struct ibv_wq *p0)
{
	return EOPNOTSUPP;
}

static int no_detach_mcast(struct ibv_qp *p0, const union ibv_gid *p1, uint16_t p2)
{
	return EOPNOTSUPP;
}

static void no_free_context(struct ibv_context *p0)
{
}

static int no_free_dm(struct ibv_dm *p0)
{
	return EOPNOTSUPP;
}

static int no_get_srq_num(struct ibv_srq *p0, uint32_t *p1)
{
	return EOPNOTSUPP;
}

static struct ibv_dm *no_import_dm(struct ibv_context *p0, uint32_t p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mr *no_import_mr(struct ibv_pd *p0, uint32_t p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_pd *no_import_pd(struct ibv_context *p0, uint32_t p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_modify_cq(struct ibv_cq *p0, struct ibv_modify_cq_attr *p1)
{
	return EOPNOTSUPP;
}

static int no_modify_flow_action_esp(struct ibv_flow_action *p0, struct ibv_flow_action_esp_attr *p1)
{
	return EOPNOTSUPP;
}

static int no_modify_qp(struct ibv_qp *p0, struct ibv_qp_attr *p1, int p2)
{
	return EOPNOTSUPP;
}

static int no_modify_qp_rate_limit(struct ibv_qp *p0, struct ibv_qp_rate_limit_attr *p1)
{
	return EOPNOTSUPP;
}

static int no_modify_srq(struct ibv_srq *p0, struct ibv_srq_attr *p1, int p2)
{
	return EOPNOTSUPP;
}

static int no_modify_wq(struct ibv_wq *p0, struct ibv_wq_attr *p1)
{
	return EOPNOTSUPP;
}

static struct ibv_qp *no_open_qp(struct ibv_context *p0, struct ibv_qp_open_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_xrcd *no_open_xrcd(struct ibv_context *p0, struct ibv_xrcd_init_attr *p1)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_poll_cq(struct ibv_cq *p0, int p1, struct ibv_wc *p2)
{
	return EOPNOTSUPP;
}

static int no_post_recv(struct ibv_qp *p0, struct ibv_recv_wr *p1, struct ibv_recv_wr **p2)
{
	return EOPNOTSUPP;
}

static int no_post_send(struct ibv_qp *p0, struct ibv_send_wr *p1, struct ibv_send_wr **p2)
{
	return EOPNOTSUPP;
}

static int no_post_srq_ops(struct ibv_srq *p0, struct ibv_ops_wr *p1, struct ibv_ops_wr **p2)
{
	return EOPNOTSUPP;
}

static int no_post_srq_recv(struct ibv_srq *p0, struct ibv_recv_wr *p1, struct ibv_recv_wr **p2)
{
	return EOPNOTSUPP;
}

static int no_query_device_ex(struct ibv_context *p0, const struct ibv_query_device_ex_input *p1, struct ibv_device_attr_ex *p2, size_t p3)
{
	return EOPNOTSUPP;
}

static int no_query_ece(struct ibv_qp *p0, struct ibv_ece *p1)
{
	return EOPNOTSUPP;
}

static int no_query_port(struct ibv_context *p0, uint8_t p1, struct ibv_port_attr *p2)
{
	return EOPNOTSUPP;
}

static int no_query_qp(struct ibv_qp *p0, struct ibv_qp_attr *p1, int p2, struct ibv_qp_init_attr *p3)
{
	return EOPNOTSUPP;
}

static int no_query_qp_data_in_order(struct ibv_qp *p0, enum ibv_wr_opcode p1, uint32_t p2)
{
	return 0;
}

static int no_query_rt_values(struct ibv_context *p0, struct ibv_values_ex *p1)
{
	return EOPNOTSUPP;
}

static int no_query_srq(struct ibv_srq *p0, struct ibv_srq_attr *p1)
{
	return EOPNOTSUPP;
}

static int no_read_counters(struct ibv_counters *p0, uint64_t *p1, uint32_t p2, uint32_t p3)
{
	return EOPNOTSUPP;
}

static struct ibv_mr *no_reg_dm_mr(struct ibv_pd *p0, struct ibv_dm *p1, uint64_t p2, size_t p3, unsigned int p4)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mr *no_reg_dmabuf_mr(struct ibv_pd *p0, uint64_t p1, size_t p2, uint64_t p3, int p4, int p5)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mr *no_reg_mr(struct ibv_pd *p0, void *p1, size_t p2, uint64_t p3, int p4)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_req_notify_cq(struct ibv_cq *p0, int p1)
{
	return EOPNOTSUPP;
}

static int no_rereg_mr(struct verbs_mr *p0, int p1, struct ibv_pd *p2, void *p3, size_t p4, int p5)
{
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

static int no_resize_cq(struct ibv_cq *p0, int p1)
{
	return EOPNOTSUPP;
}

static int no_set_ece(struct ibv_qp *p0, struct ibv_ece *p1)
{
	return EOPNOTSUPP;
}

static void no_unimport_dm(struct ibv_dm *p0)
{
}

static void no_unimport_mr(struct ibv_mr *p0)
{
}

static void no_unimport_pd(struct ibv_pd *p0)
{
}

const struct verbs_context_ops verbs_plugin_placeholders = {
	.advise_mr = no_advise_mr,
	.alloc_dm = no_alloc_dm,
	.alloc_mw = no_alloc_mw,
	.alloc_null_mr = no_alloc_null_mr,
	.alloc_parent_domain = no_alloc_parent_domain,
	.alloc_pd = no_alloc_pd,
	.alloc_td = no_alloc_td,
	.async_event = no_async_event,
	.attach_counters_point_flow = no_attach_counters_point_flow,
	.attach_mcast = no_attach_mcast,
	.bind_mw = no_bind_mw,
	.close_xrcd = no_close_xrcd,
	.cq_event = no_cq_event,
	.create_ah = no_create_ah,
	.create_counters = no_create_counters,
	.create_cq = no_create_cq,
	.create_cq_ex = no_create_cq_ex,
	.create_flow = no_create_flow,
	.create_flow_action_esp = no_create_flow_action_esp,
	.create_qp = no_create_qp,
	.create_qp_ex = no_create_qp_ex,
	.create_rwq_ind_table = no_create_rwq_ind_table,
	.create_srq = no_create_srq,
	.create_srq_ex = no_create_srq_ex,
	.create_wq = no_create_wq,
	.dealloc_mw = no_dealloc_mw,
	.dealloc_pd = no_dealloc_pd,
	.dealloc_td = no_dealloc_td,
	.dereg_mr = no_dereg_mr,
	.destroy_ah = no_destroy_ah,
	.destroy_counters = no_destroy_counters,
	.destroy_cq = no_destroy_cq,
	.destroy_flow = no_destroy_flow,
	.destroy_flow_action = no_destroy_flow_action,
	.destroy_qp = no_destroy_qp,
	.destroy_rwq_ind_table = no_destroy_rwq_ind_table,
	.destroy_srq = no_destroy_srq,
	.destroy_wq = no_destroy_wq,
	.detach_mcast = no_detach_mcast,
	.free_context = no_free_context,
	.free_dm = no_free_dm,
	.get_srq_num = no_get_srq_num,
	.import_dm = no_import_dm,
	.import_mr = no_import_mr,
	.import_pd = no_import_pd,
	.modify_cq = no_modify_cq,
	.modify_flow_action_esp = no_modify_flow_action_esp,
	.modify_qp = no_modify_qp,
	.modify_qp_rate_limit = no_modify_qp_rate_limit,
	.modify_srq = no_modify_srq,
	.modify_wq = no_modify_wq,
	.open_qp = no_open_qp,
	.open_xrcd = no_open_xrcd,
	.poll_cq = no_poll_cq,
	.post_recv = no_post_recv,
	.post_send = no_post_send,
	.post_srq_ops = no_post_srq_ops,
	.post_srq_recv = no_post_srq_recv,
	.query_device_ex = no_query_device_ex,
	.query_ece = no_query_ece,
	.query_port = no_query_port,
	.query_qp = no_query_qp,
	.query_qp_data_in_order = no_query_qp_data_in_order,
	.query_rt_values = no_query_rt_values,
	.query_srq = no_query_srq,
	.read_counters = no_read_counters,
	.reg_dm_mr = no_reg_dm_mr,
	.reg_dmabuf_mr = no_reg_dmabuf_mr,
	.reg_mr = no_reg_mr,
	.req_notify_cq = no_req_notify_cq,
	.rereg_mr = no_rereg_mr,
	.resize_cq = no_resize_cq,
	.set_ece = no_set_ece,
	.unimport_dm = no_unimport_dm,
	.unimport_mr = no_unimport_mr,
	.unimport_pd = no_unimport_pd,
};
