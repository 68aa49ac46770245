// SPDX-License-Identifier: MIT
/* rdma_client: rdma_server's peer, through the synchronous rdma_verbs.h
 * calls: it sends 16 bytes and waits for the server's 16. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MESSAGE_SIZE 16

static int ping(const char *server, const char *port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	uint8_t recv_msg[MESSAGE_SIZE], send_msg[MESSAGE_SIZE] = { 0 };
	struct ibv_mr *recv_mr = NULL, *send_mr = NULL;
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	int ret;

	if (rdma_getaddrinfo(server, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		return -1;
	}
	ret = rdma_create_ep(&id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		perror("rdma_create_ep");
		return -1;
	}
	ret = -1;
	recv_mr = rdma_reg_msgs(id, recv_msg, sizeof(recv_msg));
	send_mr = recv_mr ? rdma_reg_msgs(id, send_msg, sizeof(send_msg)) : NULL;
	if (!send_mr) {
		perror("rdma_reg_msgs");
		goto out;
	}
	if (rdma_post_recv(id, NULL, recv_msg, sizeof(recv_msg), recv_mr)) {
		perror("rdma_post_recv");
		goto out;
	}
	if (rdma_connect(id, NULL)) {
		perror("rdma_connect");
		goto out;
	}
	if (rdma_post_send(id, NULL, send_msg, sizeof(send_msg), send_mr, 0)) {
		perror("rdma_post_send");
		goto disconnect;
	}
	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_send_comp");
		goto disconnect;
	}
	if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_recv_comp");
		goto disconnect;
	}
	ret = 0;
disconnect:
	rdma_disconnect(id);
out:
	if (send_mr)
		rdma_dereg_mr(send_mr);
	if (recv_mr)
		rdma_dereg_mr(recv_mr);
	rdma_destroy_ep(id);
	return ret;
}

int main(int argc, char **argv)
{
	const char *server = "127.0.0.1", *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		switch (ch) {
		case 's': server = optarg; break;
		case 'p': port = optarg; break;
		default:
			printf("usage: %s\n\t[-s server_address]\n\t[-p port_number]\n", argv[0]);
			return 1;
		}
	}
	printf("rdma_client: start\n");
	ret = ping(server, port);
	printf("rdma_client: end %d\n", ret);
	return ret ? 255 : 0;
}
