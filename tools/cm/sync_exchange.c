// SPDX-License-Identifier: MIT
/* The exchange of rdma_server/rdma_client: one 16-byte message from the
 * client, one back, over the synchronous rdma_verbs.h calls
 * (rdma_create_ep, rdma_get_request, rdma_post_recv/send,
 * rdma_get_*_comp), as upstream's programs do.  Both sides register the
 * same two messages and post the receive before connecting; only the
 * order of sending and receiving differs. */
#include <stdio.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "sync_exchange.h"

#define MESSAGE_SIZE 16

struct messages {
	uint8_t recv_msg[MESSAGE_SIZE], send_msg[MESSAGE_SIZE];
	struct ibv_mr *recv_mr, *send_mr;
};

static const struct ibv_qp_init_attr one_message_qp = {
	.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	.sq_sig_all = 1,
};

/* Registers both messages on ID and posts the receive. */
static int messages_setup(struct messages *m, struct rdma_cm_id *id)
{
	m->recv_mr = rdma_reg_msgs(id, m->recv_msg, sizeof(m->recv_msg));
	m->send_mr = m->recv_mr ? rdma_reg_msgs(id, m->send_msg, sizeof(m->send_msg)) : NULL;
	if (!m->send_mr) {
		perror("rdma_reg_msgs");
		return -1;
	}
	if (rdma_post_recv(id, NULL, m->recv_msg, sizeof(m->recv_msg), m->recv_mr)) {
		perror("rdma_post_recv");
		return -1;
	}
	return 0;
}

static void messages_teardown(struct messages *m)
{
	if (m->send_mr)
		rdma_dereg_mr(m->send_mr);
	if (m->recv_mr)
		rdma_dereg_mr(m->recv_mr);
}

static int send_message(struct messages *m, struct rdma_cm_id *id)
{
	struct ibv_wc wc;

	if (rdma_post_send(id, NULL, m->send_msg, sizeof(m->send_msg), m->send_mr, 0)) {
		perror("rdma_post_send");
		return -1;
	}
	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_send_comp");
		return -1;
	}
	return 0;
}

static int receive_message(struct rdma_cm_id *id)
{
	struct ibv_wc wc;

	if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_recv_comp");
		return -1;
	}
	return 0;
}

/* Creates the endpoint for HOST:PORT (PASSIVE: to listen on). */
static int create_ep(const char *host, const char *port, int passive, struct rdma_cm_id **id)
{
	struct rdma_addrinfo hints = { .ai_flags = passive ? RAI_PASSIVE : 0,
				       .ai_port_space = RDMA_PS_TCP };
	struct ibv_qp_init_attr attr = one_message_qp;
	struct rdma_addrinfo *res;
	int ret;

	if (rdma_getaddrinfo(host, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		return -1;
	}
	ret = rdma_create_ep(id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		perror("rdma_create_ep");
		return -1;
	}
	return 0;
}

int sync_serve(const char *addr, const char *port)
{
	struct rdma_cm_id *listen_id, *id = NULL;
	struct messages m = { 0 };
	int ret = -1;

	if (create_ep(addr, port, 1, &listen_id))
		return -1;
	if (rdma_listen(listen_id, 0)) {
		perror("rdma_listen");
		goto out;
	}
	if (rdma_get_request(listen_id, &id)) {
		perror("rdma_get_request");
		goto out;
	}
	if (messages_setup(&m, id))
		goto out;
	if (rdma_accept(id, NULL)) {
		perror("rdma_accept");
		goto out;
	}
	ret = receive_message(id) || send_message(&m, id) ? -1 : 0;
	rdma_disconnect(id);
out:
	messages_teardown(&m);
	if (id)
		rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return ret;
}

int sync_ping(const char *server, const char *port)
{
	struct messages m = { 0 };
	struct rdma_cm_id *id;
	int ret = -1;

	if (create_ep(server, port, 0, &id))
		return -1;
	if (messages_setup(&m, id))
		goto out;
	if (rdma_connect(id, NULL)) {
		perror("rdma_connect");
		goto out;
	}
	ret = send_message(&m, id) || receive_message(id) ? -1 : 0;
	rdma_disconnect(id);
out:
	messages_teardown(&m);
	rdma_destroy_ep(id);
	return ret;
}
