/* SPDX-License-Identifier: MIT */
/*
 * An rdma_cm server (this process) and client (a child), linked statically
 * against librdmacm.a and libibverbs.a by tests/static/link.sh: address
 * resolution, connection setup and a verified SEND over rxe0's IP address,
 * with nothing but this binary.
 */
#include <stdlib.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "vmtest.h"

#define PORT "7481"
enum { MSG_SIZE = 1024 };

static const char *address;

static struct rdma_cm_id *endpoint(bool passive)
{
	struct rdma_addrinfo hints = { .ai_flags = passive ? RAI_PASSIVE : 0,
				       .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr attr = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1 },
					 .sq_sig_all = 1 };
	struct rdma_cm_id *id = NULL;

	if (!MUST(!rdma_getaddrinfo(address, PORT, &hints, &res)))
		return NULL;
	/* On a listening id, attr is for the QPs rdma_get_request() makes. */
	MUST(!rdma_create_ep(&id, res, NULL, &attr));
	rdma_freeaddrinfo(res);
	return id;
}

static void fill(unsigned char *buf)
{
	for (int i = 0; i < MSG_SIZE; i++)
		buf[i] = (unsigned char)(i * 13 + 1);
}

static int client(void)
{
	static unsigned char msg[MSG_SIZE];
	struct rdma_cm_id *id = endpoint(false);
	struct ibv_mr *mr;
	struct ibv_wc wc;

	if (!id || !MUST(mr = rdma_reg_msgs(id, msg, MSG_SIZE)))
		return vt_finish();
	fill(msg);
	if (!MUST(!rdma_connect(id, NULL)) ||
	    !MUST(!rdma_post_send(id, NULL, msg, MSG_SIZE, mr, 0)) ||
	    !MUST(rdma_get_send_comp(id, &wc) == 1))
		return vt_finish();
	CHECK(wc.status == IBV_WC_SUCCESS, "client send: %s", ibv_wc_status_str(wc.status));
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return vt_finish();
}

int main(void)
{
	static unsigned char buf[MSG_SIZE], want[MSG_SIZE];
	struct rdma_cm_id *listen_id, *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	address = getenv("RDMAVM_RXE_IP");
	if (!address)
		address = "192.0.2.1";
	printf("== static-rdmacm: server and client on %s:%s\n", address, PORT);
	if (!(listen_id = endpoint(true)) || !MUST(!rdma_listen(listen_id, 1)))
		return vt_finish();
	pid = fork();
	if (!MUST(pid >= 0))
		return vt_finish();
	if (pid == 0)
		exit(client());
	if (!MUST(!rdma_get_request(listen_id, &id)) ||
	    !MUST(mr = rdma_reg_msgs(id, buf, MSG_SIZE)) ||
	    !MUST(!rdma_post_recv(id, NULL, buf, MSG_SIZE, mr)) ||
	    !MUST(!rdma_accept(id, NULL)) || !MUST(rdma_get_recv_comp(id, &wc) == 1))
		return vt_finish();
	fill(want);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG_SIZE, "server receive: %s, %u bytes",
	      ibv_wc_status_str(wc.status), wc.byte_len);
	CHECK(!memcmp(buf, want, MSG_SIZE), "received payload differs");
	printf("connected over %s, %d bytes received and verified\n",
	       ibv_get_device_name(id->verbs->device), MSG_SIZE);
	/* The client's disconnect completes once this side's has been seen. */
	rdma_disconnect(id);
	CHECK(vt_wait_child(pid, 10000) == 0, "client failed");
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return vt_finish();
}
