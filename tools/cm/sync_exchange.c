// SPDX-License-Identifier: MIT
/* The exchanges of rdma_server/rdma_client and rdma_xserver/rdma_xclient
 * over the synchronous rdma_verbs.h calls (rdma_create_ep,
 * rdma_get_request, rdma_post_recv/send, rdma_get_*_comp), as upstream's
 * programs do.  rdma_server/rdma_client: one 16-byte message from the
 * client, one back; both sides register the same two messages and post
 * the receive before connecting, only the order of sending and receiving
 * differs.  rdma_xserver/rdma_xclient: one 16-byte message from the
 * client only (sent inline), see xsync_serve. */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Creates the endpoint for HOST:PORT as HINTS say, its QPs made with ATTR. */
static int create_ep(const char *host, const char *port, const struct rdma_addrinfo *hints,
		     struct ibv_qp_init_attr attr, struct rdma_cm_id **id)
{
	struct rdma_addrinfo *res;
	int ret;

	if (rdma_getaddrinfo(host, port, hints, &res)) {
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

/* Listens on ADDR:PORT as HINTS say and returns the first request's id
 * in ID, its QP made with ATTR. */
static int wait_request(const char *addr, const char *port, struct rdma_addrinfo hints,
			struct ibv_qp_init_attr attr, struct rdma_cm_id **listen_id,
			struct rdma_cm_id **id)
{
	hints.ai_flags |= RAI_PASSIVE;
	if (create_ep(addr, port, &hints, attr, listen_id))
		return -1;
	if (rdma_listen(*listen_id, 0)) {
		perror("rdma_listen");
		return -1;
	}
	if (rdma_get_request(*listen_id, id)) {
		perror("rdma_get_request");
		return -1;
	}
	return 0;
}

static void server_teardown(struct messages *m, struct rdma_cm_id *id,
			    struct rdma_cm_id *listen_id)
{
	messages_teardown(m);
	if (id)
		rdma_destroy_ep(id);
	if (listen_id)
		rdma_destroy_ep(listen_id);
}

static const struct rdma_addrinfo tcp_rc = { .ai_port_space = RDMA_PS_TCP };

int sync_serve(const char *addr, const char *port)
{
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	struct messages m = { 0 };
	int ret = -1;

	if (wait_request(addr, port, tcp_rc, one_message_qp, &listen_id, &id) ||
	    messages_setup(&m, id))
		goto out;
	if (rdma_accept(id, NULL)) {
		perror("rdma_accept");
		goto out;
	}
	ret = receive_message(id) || send_message(&m, id) ? -1 : 0;
	rdma_disconnect(id);
out:
	server_teardown(&m, id, listen_id);
	return ret;
}

int sync_ping(const char *server, const char *port)
{
	struct messages m = { 0 };
	struct rdma_cm_id *id;
	int ret = -1;

	if (create_ep(server, port, &tcp_rc, one_message_qp, &id))
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

/*
 * rdma_xserver/rdma_xclient, as upstream's pair behaves (observed on rxe):
 * the client connects without private data; the server accepts with 4
 * bytes of private data, the number of its XRC SRQ (0 over RC), and waits
 * for one 16-byte message; the client sends it inline, to that SRQ over
 * XRC, and both disconnect.  XRC uses the IB port space.  Neither rxe nor
 * siw has XRC: there the client's rdma_create_ep fails with EOPNOTSUPP and
 * the server waits for a request that never comes, as upstream's do; the
 * SRQ number's byte order (big-endian here) has never met upstream's.
 */
static struct rdma_addrinfo x_hints(bool xrc, bool server)
{
	if (!xrc)
		return (struct rdma_addrinfo){ .ai_port_space = RDMA_PS_TCP,
					       .ai_qp_type = IBV_QPT_RC };
	return (struct rdma_addrinfo){ .ai_port_space = RDMA_PS_IB,
				       .ai_qp_type = server ? IBV_QPT_XRC_RECV : IBV_QPT_XRC_SEND };
}

static int xsync_serve(const char *port, bool xrc)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = xrc ? 0 : 1, .max_recv_wr = 1,
			 .max_send_sge = xrc ? 0 : 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = 1, .max_sge = 1 } };
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	struct rdma_conn_param param = { 0 };
	struct messages m = { 0 };
	uint32_t srq_num = 0;
	__be32 wire_srq_num;
	int ret = -1;

	if (wait_request(NULL, port, x_hints(xrc, true), attr, &listen_id, &id))
		goto out;
	if (xrc && (rdma_create_srq(id, NULL, &srq_attr) || ibv_get_srq_num(id->srq, &srq_num))) {
		perror("rdma_create_srq");
		goto out;
	}
	if (messages_setup(&m, id))
		goto out;
	wire_srq_num = htobe32(srq_num);
	param.private_data = &wire_srq_num;
	param.private_data_len = sizeof(wire_srq_num);
	if (rdma_accept(id, &param)) {
		perror("rdma_accept");
		goto out;
	}
	ret = receive_message(id);
	rdma_disconnect(id);
out:
	server_teardown(&m, id, listen_id);
	return ret;
}

static int xsync_send(const char *server, const char *port, bool xrc)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = xrc ? 0 : 1,
			 .max_send_sge = 1, .max_recv_sge = xrc ? 0 : 1 },
		.sq_sig_all = 1,
	};
	const struct rdma_addrinfo hints = x_hints(xrc, false);
	uint8_t message[MESSAGE_SIZE] = { 0 };
	struct ibv_sge sge = { .addr = (uintptr_t)message, .length = sizeof(message) };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_INLINE }, *bad;
	const struct rdma_conn_param *accepted;
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	__be32 wire_srq_num;
	int ret = -1;

	if (create_ep(server, port, &hints, attr, &id))
		return -1;
	if (rdma_connect(id, NULL)) {
		perror("rdma_connect");
		goto out;
	}
	accepted = &id->event->param.conn;
	if (xrc) {
		if (accepted->private_data_len < sizeof(wire_srq_num)) {
			fprintf(stderr, "rdma_connect: the server sent no SRQ number\n");
			goto disconnect;
		}
		memcpy(&wire_srq_num, accepted->private_data, sizeof(wire_srq_num));
		wr.qp_type.xrc.remote_srqn = be32toh(wire_srq_num);
	}
	errno = ibv_post_send(id->qp, &wr, &bad);
	if (errno) {
		perror("ibv_post_send");
		goto disconnect;
	}
	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_send_comp");
		goto disconnect;
	}
	ret = 0;
disconnect:
	rdma_disconnect(id);
out:
	rdma_destroy_ep(id);
	return ret;
}

/* Upstream's looks at the first letter only, in either case ("-c R",
 * "-c xr" were observed to work): so do we. */
static int connection_type(const char *arg, bool *xrc)
{
	int type = tolower((unsigned char)arg[0]);

	if (type != 'r' && type != 'x')
		return -1;
	*xrc = type == 'x';
	return 0;
}

static void x_usage(const char *program, bool client)
{
	printf("usage: %s\n%s"
	       "\t[-p port_number]\n"
	       "\t[-c communication type]\n"
	       "\t    r - RC: reliable-connected (default)\n"
	       "\t    x - XRC: extended-reliable-connected\n",
	       program, client ? "\t[-s server]\n" : "");
}

int xsync_main(int argc, char **argv, bool client)
{
	const char *server = "127.0.0.1", *port = "7471";
	bool xrc = false;
	int ch, ret;

	/* upstream's ignore arguments after the options: so do we */
	while ((ch = getopt(argc, argv, client ? "s:p:c:" : "p:c:")) != -1) {
		switch (ch) {
		case 's': server = optarg; break;
		case 'p': port = optarg; break;
		case 'c':
			if (!connection_type(optarg, &xrc))
				break;
			/* fall through */
		default:
			x_usage(argv[0], client);
			return 1;
		}
	}
	printf("%s: start\n", argv[0]);
	ret = client ? xsync_send(server, port, xrc) : xsync_serve(port, xrc);
	printf("%s: end %d\n", argv[0], ret);
	return ret ? 255 : 0;
}
