// SPDX-License-Identifier: MIT
/*
 * fork() next to RDMA (rxe0).  The guest's kernel (6.1) copies pinned
 * pages into a child at fork, so fork protection reports itself
 * unneeded (IBV_FORK_UNNEEDED) whether it was asked for with
 * ibv_fork_init() or RDMAV_FORK_SAFE=1 (this program runs itself again
 * with the variable set).  What fork protection exists for must hold
 * either way: while children fork, write their copies of the registered
 * buffers and exit, the parent keeps doing RDMA writes and sends into
 * its registered buffer, touches it after each fork, and sees every
 * byte the device wrote, and none that a child wrote.
 *
 * A difference from upstream, by design of our fork support (see
 * fork-unneeded.c): upstream still marks registered memory MADV_DONTFORK
 * on this kernel once ibv_fork_init() or RDMAV_FORK_SAFE=1 asked for
 * fork protection (ibv_is_fork_initialized() says IBV_FORK_UNNEEDED all
 * the same, as its man page has it), so its children die of SIGSEGV
 * when they touch their copy of registered memory.  Ours leaves the
 * memory to the kernel, which keeps parent and child apart, and its
 * children run on.  The parent's RDMA must be right on both.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

enum { BUF = 2 * 4096, ROUNDS = 16 };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *a, *b;
static struct ibv_mr *src_mr, *dst_mr;
static char *src, *dst;

static bool complete(int n)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (vt_poll_one(cq, &wc, 5000) != 1) {
			printf("   completion %d of %d did not come\n", i + 1, n);
			return false;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("   completion %d of %d: %s\n", i + 1, n,
			       ibv_wc_status_str(wc.status));
			return false;
		}
	}
	return true;
}

/* src filled with tag goes to dst by RDMA write (first page) and by
 * send into a posted receive (second page). */
static bool transfer(char tag)
{
	struct ibv_sge wsge = { .addr = (uintptr_t)src, .length = 4096, .lkey = src_mr->lkey };
	struct ibv_sge ssge = { .addr = (uintptr_t)src + 4096, .length = 4096,
				.lkey = src_mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)dst + 4096, .length = 4096,
				.lkey = dst_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr wwr = {
		.sg_list = &wsge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .next = &swr,
		.wr.rdma = { .remote_addr = (uintptr_t)dst, .rkey = dst_mr->rkey },
	}, *sbad;

	memset(src, tag, BUF);
	if (ibv_post_recv(b, &rwr, &rbad) || ibv_post_send(a, &wwr, &sbad)) {
		printf("   post: %s\n", strerror(errno));
		return false;
	}
	return complete(3);	/* write, send, receive */
}

static int bytes_not(const char *p, char tag)
{
	int n = 0;

	for (int i = 0; i < BUF; i++)
		n += p[i] != tag;
	return n;
}

/* Whether the child ended as expected: exit 0, or killed by SIGSEGV
 * when the registered pages were kept out of it. */
static bool reaped(pid_t pid, bool dontfork)
{
	int st;

	if (waitpid(pid, &st, 0) != pid) {
		printf("   waitpid %d: %s\n", (int)pid, strerror(errno));
		return false;
	}
	if (dontfork)
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("   child %d: status %#x\n", (int)pid, st);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void rounds(bool dontfork)
{
	int lost = 0, leaked = 0, failed = 0, children = 0;

	for (int r = 0; r < ROUNDS; r++) {
		char tag = 'A' + r;
		bool child_first = r % 2;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			vt_fail("fork: %s", strerror(errno));
			return;
		}
		if (!pid) {
			/* the child scribbles over its copies and leaves */
			memset(dst, 0x5a, BUF);
			memset(src, 0x5a, BUF);
			_exit(0);
		}
		if (child_first)
			children += reaped(pid, dontfork);
		/* touch the registered pages after the fork */
		memset(dst, 0, BUF);
		if (!transfer(tag))
			failed++;
		else
			lost += bytes_not(dst, tag) != 0;
		if (!child_first)
			children += reaped(pid, dontfork);
		/* the child's writes stayed in the child */
		leaked += bytes_not(dst, tag) != 0;
	}
	printf("   %d rounds: %d children ended as expected (%s), %d transfers failed, "
	       "%d saw lost device writes, %d saw a child's writes\n",
	       ROUNDS, children, dontfork ? "SIGSEGV" : "exit 0", failed, lost, leaked);
	CHECK(children == ROUNDS, "%d of %d children ended as expected", children, ROUNDS);
	CHECK(failed == 0, "%d transfers failed", failed);
	CHECK(lost == 0, "%d rounds lost what the device wrote", lost);
	CHECK(leaked == 0, "%d rounds saw a child's writes", leaked);
}

static int run(bool from_env, char **argv)
{
	bool dontfork;

	vt_init(from_env ? "fork-safety, RDMAV_FORK_SAFE=1" : "fork-safety, ibv_fork_init()");
	if (from_env) {
		/* the variable is read when the library starts up */
		if (!MUST(ctx = vt_open_rxe()))
			exit(vt_finish());
		CHECK(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
		      "with RDMAV_FORK_SAFE=1: ibv_is_fork_initialized() = %d",
		      ibv_is_fork_initialized());
	} else {
		CHECK(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
		      "before ibv_fork_init: ibv_is_fork_initialized() = %d",
		      ibv_is_fork_initialized());
		EXPECT_RET(0, ibv_fork_init());
		CHECK(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
		      "after ibv_fork_init: ibv_is_fork_initialized() = %d",
		      ibv_is_fork_initialized());
		if (!MUST(ctx = vt_open_rxe()))
			exit(vt_finish());
	}
	if (!MUST(pd = ibv_alloc_pd(ctx)))
		exit(vt_finish());
	if (!MUST(src = aligned_alloc(4096, BUF)))
		exit(vt_finish());
	if (!MUST(dst = aligned_alloc(4096, BUF)))
		exit(vt_finish());
	if (!MUST(src_mr = ibv_reg_mr(pd, src, BUF, IBV_ACCESS_LOCAL_WRITE)))
		exit(vt_finish());
	if (!MUST(dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
		exit(vt_finish());
	if (!MUST(cq = ibv_create_cq(ctx, 32, NULL, NULL, 0)))
		exit(vt_finish());
	if (!MUST(a = vt_create_rc_qp(pd, cq)))
		exit(vt_finish());
	if (!MUST(b = vt_create_rc_qp(pd, cq)))
		exit(vt_finish());
	if (!MUST(!vt_connect_rc(a, b)))
		exit(vt_finish());

	/* see the top: only upstream does this */
	dontfork = vt_upstream;
	CHECK(vt_dontfork(dst) == dontfork, "registered memory %s MADV_DONTFORK",
	      dontfork ? "lacks" : "has");
	printf("-- RDMA into registered memory while children fork and write\n");
	rounds(dontfork);

	EXPECT_RET(0, ibv_destroy_qp(a));
	EXPECT_RET(0, ibv_destroy_qp(b));
	EXPECT_RET(0, ibv_destroy_cq(cq));
	EXPECT_RET(0, ibv_dereg_mr(src_mr));
	EXPECT_RET(0, ibv_dereg_mr(dst_mr));
	EXPECT_RET(0, ibv_dealloc_pd(pd));
	EXPECT_RET(0, ibv_close_device(ctx));
	if (vt_finish() || from_env)
		return vt_failures ? 1 : 0;

	printf("\n-- again, with RDMAV_FORK_SAFE=1 from the start\n");
	fflush(stdout);
	setenv("RDMAV_FORK_SAFE", "1", 1);
	execv("/proc/self/exe", (char *[]){ argv[0], "--from-env", NULL });
	printf("FAIL: execv: %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	return run(argc > 1 && !strcmp(argv[1], "--from-env"), argv);
}
