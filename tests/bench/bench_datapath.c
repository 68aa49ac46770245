// SPDX-License-Identifier: MIT
/*
 * Work-request and completion paths, for tests/bench/run.sh: the user-space
 * instructions each operation costs, counted by callgrind.  The same binary
 * runs on our libibverbs and on upstream's (LD_LIBRARY_PATH picks one), so
 * it uses nothing but the public ABI.
 *
 *   valgrind --tool=callgrind --collect-atstart=no \
 *       --toggle-collect='measured_*' --dump-after='phase_*' \
 *       bench_datapath LIBDIR [ITERATIONS [ROUNDS]]
 *
 * Two RC queue pairs on the rxe device ($RDMAVM_RXE_DEV, GID index
 * $RDMAVM_RXE_GID) are connected to each other: A sends, B receives.  Each
 * measured_*() function below is one operation; callgrind collects only
 * while one runs, and writes one profile per phase_*() (ITERATIONS
 * operations, default 100), ROUNDS times each (default 3), after an
 * uncounted warm-up phase that binds every symbol.  The operations:
 *
 *   send_recv  ibv_post_recv on B, ibv_post_send (SEND, signaled) on A,
 *              then one completion from each queue pair's CQ
 *   write      ibv_post_send (RDMA WRITE into B's buffer, signaled) on A,
 *              then its completion
 *   wr_send    ibv_wr_start, ibv_wr_send, ibv_wr_set_sge, ibv_wr_complete
 *              on A, then its completion (B's receive is posted and
 *              reaped outside the count)
 *   empty_poll ibv_poll_cq on an empty CQ
 *
 * A poll that finds nothing yet is retried and counted as a spin: "spins
 * PHASE N" per phase.  The kernel's part of the doorbell is not simulated
 * by valgrind (a system call runs natively), so no kernel instruction is
 * ever counted.  Without valgrind the program runs the same and only
 * prints its facts, which makes it a plain functional check.
 *
 * LIBDIR is where libibverbs.so.1 must have come from: the program names
 * the object it really uses and exits 2 if that is anything else.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "bench_lib.h"
#include "../vm/vmtest.h"

enum { MSG_SIZE = 64, QUEUE_DEPTH = 64, WARMUP = 8 };

/* Not inlined, not cloned: callgrind finds them by name. */
#define MEASURED __attribute__((noinline, noclone, used))

struct bench {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;		/* A's source, then B's destination */
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *a_ex;
	struct ibv_sge src, dst;
	struct ibv_recv_wr recv_wr;
	struct ibv_send_wr send_wr, write_wr;
	long spins;		/* empty polls while waiting for a completion */
	int err;		/* the first failure: the run is void */
};

static void fail(struct bench *b, const char *what, int err)
{
	if (!b->err) {
		printf("error %s: %s\n", what, strerror(err));
		b->err = err ? err : EIO;
	}
}

/* Waits for one successful completion on cq. */
static void reap(struct bench *b, struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		b->spins++;
	if (n < 0)
		fail(b, "ibv_poll_cq", EIO);
	else if (wc.status != IBV_WC_SUCCESS)
		fail(b, ibv_wc_status_str(wc.status), EIO);
}

static void post_recv(struct bench *b)
{
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(b->b, &b->recv_wr, &bad);

	if (ret)
		fail(b, "ibv_post_recv", ret);
}

static void post_send(struct bench *b, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(b->a, wr, &bad);

	if (ret)
		fail(b, "ibv_post_send", ret);
}

/* ------------------------------------------------------------------ */
/* The operations                                                      */

MEASURED void measured_send_recv(struct bench *b)
{
	post_recv(b);
	post_send(b, &b->send_wr);
	reap(b, b->cq_a);
	reap(b, b->cq_b);
}

MEASURED void measured_write(struct bench *b)
{
	post_send(b, &b->write_wr);
	reap(b, b->cq_a);
}

MEASURED void measured_wr_send(struct bench *b)
{
	struct ibv_qp_ex *qpx = b->a_ex;
	int ret;

	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, b->src.lkey, b->src.addr, b->src.length);
	ret = ibv_wr_complete(qpx);
	if (ret)
		fail(b, "ibv_wr_complete", ret);
	reap(b, b->cq_a);
}

MEASURED void measured_empty_poll(struct bench *b)
{
	struct ibv_wc wc;

	if (ibv_poll_cq(b->cq_a, 1, &wc) != 0)
		fail(b, "ibv_poll_cq on an empty CQ", EIO);
}

/* ------------------------------------------------------------------ */
/* Phases: one profile each                                            */

static void wr_send_with_recv(struct bench *b)
{
	post_recv(b);
	measured_wr_send(b);
	reap(b, b->cq_b);
}

static void run_ops(struct bench *b, void (*op)(struct bench *), int n)
{
	for (int i = 0; i < n && !b->err; i++)
		op(b);
}

MEASURED void phase_warmup(struct bench *b)
{
	run_ops(b, measured_send_recv, WARMUP);
	run_ops(b, measured_write, WARMUP);
	run_ops(b, wr_send_with_recv, WARMUP);
	run_ops(b, measured_empty_poll, WARMUP);
}

MEASURED void phase_send_recv(struct bench *b, int n)
{
	run_ops(b, measured_send_recv, n);
}

MEASURED void phase_write(struct bench *b, int n)
{
	run_ops(b, measured_write, n);
}

MEASURED void phase_wr_send(struct bench *b, int n)
{
	run_ops(b, wr_send_with_recv, n);
}

MEASURED void phase_empty_poll(struct bench *b, int n)
{
	run_ops(b, measured_empty_poll, n);
}

static void run_phase(struct bench *b, const char *name, void (*phase)(struct bench *, int),
		      int n)
{
	b->spins = 0;
	phase(b, n);
	printf("spins %s %ld\n", name, b->spins);
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */

static struct ibv_qp *create_qp(struct bench *b, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = QUEUE_DEPTH, .max_recv_wr = QUEUE_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = b->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};

	return ibv_create_qp_ex(b->ctx, &attr);
}

static int setup(struct bench *b)
{
	int ret;

	b->ctx = vt_open_rxe();
	if (!b->ctx)
		return 1;
	b->buf = calloc(2, MSG_SIZE);
	b->pd = ibv_alloc_pd(b->ctx);
	if (!b->buf || !b->pd)
		return 1;
	b->mr = ibv_reg_mr(b->pd, b->buf, 2 * MSG_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	b->cq_a = ibv_create_cq(b->ctx, QUEUE_DEPTH, NULL, NULL, 0);
	b->cq_b = ibv_create_cq(b->ctx, QUEUE_DEPTH, NULL, NULL, 0);
	if (!b->mr || !b->cq_a || !b->cq_b)
		return 1;
	b->a = create_qp(b, b->cq_a);
	b->b = create_qp(b, b->cq_b);
	if (!b->a || !b->b)
		return 1;
	b->a_ex = ibv_qp_to_qp_ex(b->a);
	if (!b->a_ex)
		return 1;
	ret = vt_connect_rc(b->a, b->b);
	if (ret) {
		errno = ret;
		return 1;
	}
	b->src = (struct ibv_sge){ (uintptr_t)b->buf, MSG_SIZE, b->mr->lkey };
	b->dst = (struct ibv_sge){ (uintptr_t)b->buf + MSG_SIZE, MSG_SIZE, b->mr->lkey };
	b->recv_wr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &b->dst, .num_sge = 1 };
	b->send_wr = (struct ibv_send_wr){
		.wr_id = 2, .sg_list = &b->src, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	b->write_wr = (struct ibv_send_wr){
		.wr_id = 4, .sg_list = &b->src, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = b->dst.addr, .rkey = b->mr->rkey },
	};
	return 0;
}

static void teardown(struct bench *b)
{
	if (b->a)
		ibv_destroy_qp(b->a);
	if (b->b)
		ibv_destroy_qp(b->b);
	if (b->cq_a)
		ibv_destroy_cq(b->cq_a);
	if (b->cq_b)
		ibv_destroy_cq(b->cq_b);
	if (b->mr)
		ibv_dereg_mr(b->mr);
	if (b->pd)
		ibv_dealloc_pd(b->pd);
	if (b->ctx)
		ibv_close_device(b->ctx);
	free(b->buf);
}

int main(int argc, char **argv)
{
	char want_dir[PATH_MAX];
	struct bench b = {};
	int iterations = 100, rounds = 3;

	if (argc > 2)
		iterations = atoi(argv[2]);
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (argc < 2 || argc > 4 || !realpath(argv[1], want_dir) || iterations < 1 ||
	    rounds < 1) {
		fprintf(stderr, "usage: %s LIBDIR [ITERATIONS [ROUNDS]]\n", argv[0]);
		return 64;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (bench_check_library((void *)ibv_get_device_list, want_dir)) {
		printf("error libibverbs.so.1 is not from %s\n", want_dir);
		return 2;
	}
	if (setup(&b)) {
		printf("error setup: %s\n", strerror(errno));
		teardown(&b);
		return 1;
	}
	/* Upstream's provider is loaded by now: it must not have brought in
	 * another libibverbs. */
	if (bench_count_objects(want_dir, false) < 0) {
		teardown(&b);
		return 2;
	}
	printf("iterations %d\n", iterations);
	phase_warmup(&b);
	for (int r = 0; r < rounds && !b.err; r++) {
		run_phase(&b, "send_recv", phase_send_recv, iterations);
		run_phase(&b, "write", phase_write, iterations);
		run_phase(&b, "wr_send", phase_wr_send, iterations);
		run_phase(&b, "empty_poll", phase_empty_poll, iterations);
	}
	teardown(&b);
	return b.err ? 1 : 0;
}
