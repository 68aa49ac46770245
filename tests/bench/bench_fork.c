// SPDX-License-Identifier: MIT
/*
 * Fork-safety range tracking under load, for tests/bench/run.sh.  The same
 * binary runs on our libibverbs and on upstream's (LD_LIBRARY_PATH picks
 * one), so it uses nothing but the exported ABI.
 *
 *   bench_fork LIBDIR [LIVE [OPS [REPS]]]
 *
 * With LIVE single-page ranges registered (default 20000, one free page
 * between neighbours so that none merge), each of REPS rounds (default 7)
 * times, per operation:
 *   insert  ibv_dontfork_range() of OPS new ranges among the live ones,
 *   remove  ibv_dofork_range() of those OPS ranges again,
 *   reref   ibv_dontfork_range() + ibv_dofork_range() of an already
 *           registered range, 10 * OPS times (a pair counts as one op).
 * Insert and remove each make one madvise() system call; reref makes none.
 *
 * Fork safety must really be on: a kernel that copies pinned pages on fork
 * makes ibv_fork_init() a no-op, so the library's RDMA netlink socket is
 * refused first (seccomp).  LIBDIR is where libibverbs.so.1 must have come
 * from: the program names the object it really uses and exits 2 if that is
 * anything else.  Output is one "key value" line per fact; times are
 * medians over the rounds, in nanoseconds per operation.
 */
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "bench_lib.h"

/* Exported by every libibverbs.so.1 since IBVERBS_1.1, declared in no
 * public header. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* socket(AF_NETLINK, *, NETLINK_RDMA) fails with EPROTONOSUPPORT, as on a
 * kernel without RDMA: the library cannot learn about copy-on-fork. */
static int refuse_rdma_netlink(void)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) offsetof(struct seccomp_data, args[n])
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args[n]) + 4)
#endif
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(0)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NETLINK_RDMA, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPROTONOSUPPORT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		printf("error seccomp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void shuffle(unsigned int *v, unsigned int n, unsigned int *seed)
{
	for (unsigned int i = n - 1; i > 0; i--) {
		unsigned int j = rand_r(seed) % (i + 1), tmp = v[i];

		v[i] = v[j];
		v[j] = tmp;
	}
}

struct bench {
	char *base;
	size_t page;
	unsigned int live, ops;
	unsigned int *slot;	/* slot[0..live) registered, then ops spare */
	unsigned int *pick;	/* live slots to re-reference */
};

static void *slot_addr(const struct bench *b, unsigned int slot)
{
	return b->base + (size_t)slot * 2 * b->page;
}

/* Runs fn over n slots; returns ns per call, or -1 on error. */
static long long timed(const struct bench *b, const unsigned int *slots, unsigned int n,
		       int (*fn)(void *, size_t), const char *what)
{
	long long t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++) {
		if (fn(slot_addr(b, slots[i]), b->page)) {
			printf("error %s: %s\n", what, strerror(errno));
			return -1;
		}
	}
	return (bench_now_ns() - t0) / n;
}

static long long timed_reref(const struct bench *b, unsigned int n)
{
	long long t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++) {
		void *addr = slot_addr(b, b->pick[i]);

		if (ibv_dontfork_range(addr, b->page) || ibv_dofork_range(addr, b->page)) {
			printf("error reref: %s\n", strerror(errno));
			return -1;
		}
	}
	return (bench_now_ns() - t0) / n;
}

static int run(struct bench *b, int reps)
{
	long long *ins = calloc(reps, sizeof(long long)), *rem = calloc(reps, sizeof(long long));
	long long *reref = calloc(reps, sizeof(long long));
	unsigned int seed = 1, nreref = 10 * b->ops;
	int ret = 1;

	b->pick = calloc(nreref, sizeof(*b->pick));
	if (!ins || !rem || !reref || !b->pick)
		goto out;
	for (unsigned int i = 0; i < b->live + b->ops; i++)
		b->slot[i] = i;
	shuffle(b->slot, b->live + b->ops, &seed);
	if (timed(b, b->slot, b->live, ibv_dontfork_range, "setup") < 0)
		goto out;
	for (int r = 0; r < reps; r++) {
		for (unsigned int i = 0; i < nreref; i++)
			b->pick[i] = b->slot[rand_r(&seed) % b->live];
		ins[r] = timed(b, b->slot + b->live, b->ops, ibv_dontfork_range, "insert");
		if (ins[r] < 0)
			goto out;
		rem[r] = timed(b, b->slot + b->live, b->ops, ibv_dofork_range, "remove");
		if (rem[r] < 0)
			goto out;
		reref[r] = timed_reref(b, nreref);
		if (reref[r] < 0)
			goto out;
	}
	printf("insert_ns %lld\n", bench_median(ins, reps));
	printf("remove_ns %lld\n", bench_median(rem, reps));
	printf("reref_ns %lld\n", bench_median(reref, reps));
	ret = timed(b, b->slot, b->live, ibv_dofork_range, "teardown") < 0;
out:
	free(ins);
	free(rem);
	free(reref);
	free(b->pick);
	return ret;
}

int main(int argc, char **argv)
{
	struct bench b = { .live = 20000, .ops = 2000 };
	char want_dir[PATH_MAX];
	int reps = 7, ret;

	if (argc > 2)
		b.live = atoi(argv[2]);
	if (argc > 3)
		b.ops = atoi(argv[3]);
	if (argc > 4)
		reps = atoi(argv[4]);
	if (argc < 2 || argc > 5 || !realpath(argv[1], want_dir) || !b.live || !b.ops ||
	    reps < 1) {
		fprintf(stderr, "usage: %s LIBDIR [LIVE [OPS [REPS]]]\n", argv[0]);
		return 64;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (bench_check_library((void *)ibv_dontfork_range, want_dir)) {
		printf("error libibverbs.so.1 is not from %s\n", want_dir);
		return 2;
	}
	if (refuse_rdma_netlink())
		return 1;
	ret = ibv_fork_init();
	if (ret || ibv_is_fork_initialized() != IBV_FORK_ENABLED) {
		printf("error ibv_fork_init: %s, status %d\n", strerror(ret),
		       ibv_is_fork_initialized());
		return 1;
	}
	printf("live_ranges %u\n", b.live);
	printf("ops %u\n", b.ops);

	b.page = sysconf(_SC_PAGESIZE);
	/* Address space only: madvise() needs no populated pages. */
	b.base = mmap(NULL, (size_t)(b.live + b.ops) * 2 * b.page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	b.slot = calloc(b.live + b.ops, sizeof(*b.slot));
	if (b.base == MAP_FAILED || !b.slot) {
		printf("error memory: %s\n", strerror(errno));
		return 1;
	}
	ret = run(&b, reps);
	free(b.slot);
	munmap(b.base, (size_t)(b.live + b.ops) * 2 * b.page);
	return ret;
}
