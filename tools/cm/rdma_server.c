// SPDX-License-Identifier: MIT
/* rdma_server: the synchronous rdma_verbs.h calls (rdma_create_ep,
 * rdma_get_request, rdma_post_recv/send) on one connection: it waits for
 * the client's 16-byte message and answers with 16 bytes of its own. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>


#define MESSAGE_SIZE 16

static int serve(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	uint8_t recv_msg[MESSAGE_SIZE], send_msg[MESSAGE_SIZE] = { 0 };
	struct rdma_cm_id *listen_id, *id = NULL;
	struct ibv_mr *recv_mr = NULL, *send_mr = NULL;
	struct rdma_addrinfo *res;
	struct ibv_wc wc;
	int ret = -1;

	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		return -1;
	}
	ret = rdma_create_ep(&listen_id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		perror("rdma_create_ep");
		return -1;
	}
	ret = -1;
	if (rdma_listen(listen_id, 0)) {
		perror("rdma_listen");
		goto out;
	}
	if (rdma_get_request(listen_id, &id)) {
		perror("rdma_get_request");
		goto out;
	}
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
	if (rdma_accept(id, NULL)) {
		perror("rdma_accept");
		goto out;
	}
	if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status) {
		perror("rdma_get_recv_comp");
		goto disconnect;
	}
	if (rdma_post_send(id, NULL, send_msg, sizeof(send_msg), send_mr, 0)) {
		perror("rdma_post_send");
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
	if (send_mr)
		rdma_dereg_mr(send_mr);
	if (recv_mr)
		rdma_dereg_mr(recv_mr);
	if (id)
		rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return ret;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		switch (ch) {
		case 's': addr = optarg; break;
		case 'p': port = optarg; break;
		default:
			printf("usage: %s\n\t[-s server_address]\n\t[-p port_number]\n", argv[0]);
			return 1;
		}
	}
	printf("rdma_server: start\n");
	ret = serve(addr, port);
	printf("rdma_server: end %d\n", ret);
	return ret ? 255 : 0;
}
