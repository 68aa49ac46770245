/* SPDX-License-Identifier: MIT */
/*
 * A device lister and an RC exchange, linked statically against
 * libibverbs.a by tests/static/link.sh: with nothing but this binary (no
 * shared libibverbs, no environment, no constructor of its own), the
 * built-in providers must find exactly the devices named on the command
 * line, and two connected RC QPs on rxe0 must move verified data.
 *
 *   static-verbs DEVICE...
 */
#include <stdint.h>
#include <stdlib.h>

#include "vmtest.h"

enum { MSG_SIZE = 4096 };

/* Whether a mapping of this process names a file containing what. */
static bool mapped(const char *what)
{
	char line[512];
	bool found = false;
	FILE *maps = fopen("/proc/self/maps", "re");

	if (!maps)
		return false;
	while (fgets(line, sizeof(line), maps))
		found |= strstr(line, what) != NULL;
	fclose(maps);
	return found;
}

static bool listed(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return true;
	return false;
}

static void list_devices(int argc, char **argv)
{
	struct ibv_device **list;
	int n;

	if (!MUST(list = ibv_get_device_list(&n)))
		return;
	for (int i = 0; i < n; i++)
		printf("device %s (%s, node GUID %016llx)\n", ibv_get_device_name(list[i]),
		       list[i]->dev_name, (unsigned long long)be64toh(ibv_get_device_guid(list[i])));
	CHECK(n == argc - 1, "%d devices listed, %d expected", n, argc - 1);
	for (int i = 1; i < argc; i++)
		CHECK(listed(list, argv[i]), "%s is not listed", argv[i]);
	ibv_free_device_list(list);
}

/* Two completions on cq, one of each opcode, both successful. */
static void expect_completions(struct ibv_cq *cq, enum ibv_wc_opcode first,
			       enum ibv_wc_opcode second, uint32_t recv_len)
{
	bool seen_first = false, seen_second = false;
	struct ibv_wc wc;

	for (int i = 0; i < 2; i++) {
		if (vt_poll_one(cq, &wc, 5000) != 1) {
			vt_fail("completion %d of 2 did not come", i + 1);
			return;
		}
		CHECK(wc.status == IBV_WC_SUCCESS, "wr %llu: %s", (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
		seen_first |= wc.opcode == first;
		seen_second |= wc.opcode == second;
		if (wc.opcode & IBV_WC_RECV)
			CHECK(wc.byte_len == recv_len, "received %u bytes, not %u", wc.byte_len, recv_len);
	}
	CHECK(seen_first && seen_second, "opcodes %d and %d expected", first, second);
}

static void rc_exchange(void)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	unsigned char *buf;

	if (!MUST(ctx = vt_open_rxe()))
		return;
	if (!MUST(pd = ibv_alloc_pd(ctx)) || !MUST(cq = ibv_create_cq(ctx, 32, NULL, NULL, 0)) ||
	    !MUST(a = vt_create_rc_qp(pd, cq)) || !MUST(b = vt_create_rc_qp(pd, cq)) ||
	    !MUST(!vt_connect_rc(a, b)) || !MUST(buf = calloc(3, MSG_SIZE)))
		exit(vt_finish());
	if (!MUST(mr = ibv_reg_mr(pd, buf, 3 * MSG_SIZE,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
		exit(vt_finish());
	for (int i = 0; i < MSG_SIZE; i++)
		buf[i] = (unsigned char)(i * 7 + 3);

	/* SEND from a lands in b's posted receive (the second third). */
	struct ibv_sge recv_sge = { (uintptr_t)(buf + MSG_SIZE), MSG_SIZE, mr->lkey };
	struct ibv_recv_wr recv = { .wr_id = 1, .sg_list = &recv_sge, .num_sge = 1 }, *bad_recv;
	struct ibv_sge send_sge = { (uintptr_t)buf, MSG_SIZE, mr->lkey };
	struct ibv_send_wr send = { .wr_id = 2, .sg_list = &send_sge, .num_sge = 1,
				    .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad_send;

	if (!MUST(!ibv_post_recv(b, &recv, &bad_recv)) || !MUST(!ibv_post_send(a, &send, &bad_send)))
		exit(vt_finish());
	expect_completions(cq, IBV_WC_SEND, IBV_WC_RECV, MSG_SIZE);
	CHECK(!memcmp(buf, buf + MSG_SIZE, MSG_SIZE), "SEND payload differs");

	/* RDMA WRITE with immediate from b into the last third, by rkey. */
	struct ibv_recv_wr imm_recv = { .wr_id = 3 };
	struct ibv_send_wr write = { .wr_id = 4, .sg_list = &recv_sge, .num_sge = 1,
				     .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				     .send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(0x5eed) };

	write.wr.rdma.remote_addr = (uintptr_t)(buf + 2 * MSG_SIZE);
	write.wr.rdma.rkey = mr->rkey;
	if (!MUST(!ibv_post_recv(a, &imm_recv, &bad_recv)) || !MUST(!ibv_post_send(b, &write, &bad_send)))
		exit(vt_finish());
	expect_completions(cq, IBV_WC_RDMA_WRITE, IBV_WC_RECV_RDMA_WITH_IMM, MSG_SIZE);
	CHECK(!memcmp(buf, buf + 2 * MSG_SIZE, MSG_SIZE), "RDMA WRITE payload differs");
	printf("rc exchange on %s: SEND and RDMA WRITE of %d bytes each, verified\n",
	       ibv_get_device_name(ctx->device), MSG_SIZE);

	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy QPs");
	CHECK(!ibv_dereg_mr(mr) && !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "release");
	CHECK(!ibv_close_device(ctx), "close");
	free(buf);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("== static-verbs: libibverbs linked in (%s)\n", getenv("LD_LIBRARY_PATH") ?
	       "LD_LIBRARY_PATH is set, and must not matter" : "no LD_LIBRARY_PATH");
	CHECK(!mapped("libibverbs") && !mapped("ld-linux"), "no shared libibverbs, no dynamic loader");
	list_devices(argc, argv);
	rc_exchange();
	return vt_finish();
}
