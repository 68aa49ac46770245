/* SPDX-License-Identifier: MIT */
/*
 * Fork safety.  The range tree is checked against a per-page reference
 * model through a fake madvise that records calls, keeps per-page advice and
 * fails on demand; the public API is checked on real memory, reading the
 * kernel's verdict ("dc" in VmFlags) from /proc/self/smaps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fork.h"
#include "unit.h"

/* ck_assert reports every passing check to the parent process; the model
 * checks run millions of times, so they speak up only on failure. */
#define REQUIRE(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #cond); \
	} while (0)
#define REQUIRE_OP(a, op, b)                                                     \
	do {                                                                     \
		unsigned long long _a = (unsigned long long)(a);                  \
		unsigned long long _b = (unsigned long long)(b);                  \
		if (!(_a op _b))                                                 \
			ck_abort_msg("%s:%d: %s %s %s (%#llx vs %#llx)", __FILE__, \
				     __LINE__, #a, #op, #b, _a, _b);              \
	} while (0)
#define REQUIRE_EQ(a, b) REQUIRE_OP(a, ==, b)
#define REQUIRE_NE(a, b) REQUIRE_OP(a, !=, b)
#define REQUIRE_PTR_EQ(a, b) REQUIRE_OP((uintptr_t)(a), ==, (uintptr_t)(b))
#define REQUIRE_LT(a, b) REQUIRE_OP(a, <, b)
#define REQUIRE_LE(a, b) REQUIRE_OP(a, <=, b)
#define REQUIRE_GT(a, b) REQUIRE_OP(a, >, b)
#define REQUIRE_GE(a, b) REQUIRE_OP(a, >=, b)

/* ---- Fake madvise over a window of fake page addresses ---- */

#define PAGE 4096u
#define BASE ((uintptr_t)0x40000000)
#define NPAGES 64

struct call {
	uintptr_t addr;
	size_t len;
	int advice;
};

static struct {
	bool dontfork[NPAGES];	/* advice per page, as the kernel would keep it */
	struct call log[4 * NPAGES];
	unsigned int ncalls;
	unsigned int fail_at;	/* 1-based call number that fails; 0: none */
	int fail_errno;
} fake;

static uintptr_t pg(unsigned int i)
{
	return BASE + (uintptr_t)i * PAGE;
}

static int fake_advise(void *addr, size_t len, int advice)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int first = (a - BASE) / PAGE, n = len / PAGE;

	REQUIRE_EQ(a % PAGE, 0);
	REQUIRE_EQ(len % PAGE, 0);
	REQUIRE_GT(n, 0);
	REQUIRE_LE(first + n, NPAGES);
	REQUIRE(advice == MADV_DONTFORK || advice == MADV_DOFORK);
	REQUIRE_LT(fake.ncalls, sizeof(fake.log) / sizeof(fake.log[0]));
	fake.log[fake.ncalls++] = (struct call){ a, len, advice };
	if (fake.ncalls == fake.fail_at) {
		/* Like the kernel on a hole: the part before it is already done. */
		fake.dontfork[first] = advice == MADV_DONTFORK;
		errno = fake.fail_errno;
		return -1;
	}
	for (unsigned int i = first; i < first + n; i++)
		fake.dontfork[i] = advice == MADV_DONTFORK;
	return 0;
}

static void fake_reset(void)
{
	fake.ncalls = 0;
	fake.fail_at = 0;
}

/* ---- Tree invariants ---- */

static unsigned int check_subtree(const struct fork_range *n, const struct fork_range *parent,
				  unsigned int *count)
{
	unsigned int lh, rh;

	if (!n)
		return 1;
	REQUIRE_PTR_EQ(n->parent, parent);
	if (n->red) {
		REQUIRE(!n->left || !n->left->red);
		REQUIRE(!n->right || !n->right->red);
	}
	if (n->left)
		REQUIRE_LT(n->left->start, n->start);
	if (n->right)
		REQUIRE_GT(n->right->start, n->start);
	lh = check_subtree(n->left, n, count);
	(*count)++;
	rh = check_subtree(n->right, n, count);
	REQUIRE_EQ(lh, rh);
	return lh + !n->red;
}

static const struct fork_range *find(const struct fork_tree *t, uintptr_t addr)
{
	const struct fork_range *n = t->root;

	while (n && !(n->start <= addr && addr < n->end))
		n = addr < n->start ? n->left : n->right;
	return n;
}

static unsigned long count_at(const struct fork_tree *t, uintptr_t addr)
{
	const struct fork_range *n = find(t, addr);

	return n ? n->refs : 0;
}

/* The start-address index holds exactly the tree's ranges. */
static void check_index(const struct fork_tree *t, unsigned int nodes)
{
	unsigned int hashed = 0;

	REQUIRE_EQ(t->nranges, nodes);
	if (!t->by_start)
		return;
	for (size_t b = 0; b < (size_t)1 << t->by_start_bits; b++) {
		for (const struct fork_range *n = t->by_start[b]; n; n = n->hash_next) {
			REQUIRE_PTR_EQ(find(t, n->start), n);
			hashed++;
		}
	}
	REQUIRE_EQ(hashed, nodes);
}

static unsigned int height(const struct fork_range *n)
{
	unsigned int l, r;

	if (!n)
		return 0;
	l = height(n->left);
	r = height(n->right);
	return 1 + (l > r ? l : r);
}

/* Red-black shape, then the address-order list: sorted, disjoint, aligned,
 * counts > 0, maximal (no touching neighbours with equal counts), and as
 * long as the tree.  Returns the node count. */
static unsigned int check_tree(const struct fork_tree *t)
{
	const struct fork_range *n = t->root, *prev = NULL;
	unsigned int in_tree = 0, in_list = 0;

	REQUIRE(!t->root || !t->root->red);
	check_subtree(t->root, NULL, &in_tree);
	/* What balance buys: depth at most 2 log2(n + 1). */
	REQUIRE_LE(1ull << (height(t->root) / 2), in_tree + 1);
	while (n && n->left)
		n = n->left;
	for (; n; prev = n, n = n->next) {
		REQUIRE_PTR_EQ(n->prev, prev);
		REQUIRE_LT(n->start, n->end);
		REQUIRE_EQ(n->start % PAGE, 0);
		REQUIRE_EQ(n->end % PAGE, 0);
		REQUIRE_GT(n->refs, 0);
		if (prev) {
			REQUIRE_LE(prev->end, n->start);
			REQUIRE(prev->end != n->start || prev->refs != n->refs);
		}
		in_list++;
	}
	REQUIRE_EQ(in_list, in_tree);
	check_index(t, in_tree);
	return in_tree;
}

/* ---- Reference model ---- */

static unsigned long model[NPAGES];

/* The calls an update of pages [a, b) must make: one per maximal run of
 * pages crossing 0 <-> 1, in address order. */
static unsigned int expected_calls(unsigned int a, unsigned int b, int delta, struct call *out)
{
	unsigned int n = 0;

	for (unsigned int i = a; i < b; i++) {
		bool crosses = delta > 0 ? model[i] == 0 : model[i] == 1;

		if (!crosses)
			continue;
		if (n && out[n - 1].addr + out[n - 1].len == pg(i)) {
			out[n - 1].len += PAGE;
		} else {
			out[n++] = (struct call){ pg(i), PAGE,
						  delta > 0 ? MADV_DONTFORK : MADV_DOFORK };
		}
	}
	return n;
}

static void model_apply(unsigned int a, unsigned int b, int delta)
{
	for (unsigned int i = a; i < b; i++)
		if (delta > 0 || model[i] > 0)
			model[i] += delta;
}

static void check_against_model(const struct fork_tree *t)
{
	check_tree(t);
	for (unsigned int i = 0; i < NPAGES; i++) {
		REQUIRE_EQ(count_at(t, pg(i)), model[i]);
		REQUIRE_EQ(fake.dontfork[i], model[i] > 0);
	}
}

static struct fork_tree tree = { .advise = fake_advise };

static void setup(void)
{
	memset(&fake, 0, sizeof(fake));
	memset(model, 0, sizeof(model));
	fork_tree_clear(&tree);
}

static void teardown(void)
{
	fork_tree_clear(&tree);
}

/* Applies an update to tree and model; checks calls and the result. */
static void update_ok(unsigned int a, unsigned int b, int delta)
{
	struct call want[NPAGES];
	unsigned int nwant = expected_calls(a, b, delta, want);

	fake_reset();
	REQUIRE_EQ(fork_tree_update(&tree, pg(a), pg(b), delta), 0);
	REQUIRE_EQ(fake.ncalls, nwant);
	for (unsigned int i = 0; i < nwant; i++) {
		REQUIRE_EQ(fake.log[i].addr, want[i].addr);
		REQUIRE_EQ(fake.log[i].len, want[i].len);
		REQUIRE_EQ(fake.log[i].advice, want[i].advice);
	}
	model_apply(a, b, delta);
	check_against_model(&tree);
}

/* Fails call k of an update: same calls up to k, then the k calls undone
 * in the same order with the opposite advice; tree and pages unchanged. */
static void update_fails(unsigned int a, unsigned int b, int delta, unsigned int k, int err)
{
	struct call want[NPAGES];
	unsigned int nwant = expected_calls(a, b, delta, want);

	REQUIRE_GE(nwant, k);
	fake_reset();
	fake.fail_at = k;
	fake.fail_errno = err;
	REQUIRE_EQ(fork_tree_update(&tree, pg(a), pg(b), delta), err);
	REQUIRE_EQ(fake.ncalls, 2 * k);
	for (unsigned int i = 0; i < 2 * k; i++) {
		const struct call *w = &want[i % k];

		REQUIRE_EQ(fake.log[i].addr, w->addr);
		REQUIRE_EQ(fake.log[i].len, w->len);
		REQUIRE_EQ(fake.log[i].advice, i < k ? w->advice :
				 w->advice == MADV_DONTFORK ? MADV_DOFORK : MADV_DONTFORK);
	}
	check_against_model(&tree);
}

/* ---- Targeted tree tests ---- */

START_TEST(split_at_both_ends)
{
	update_ok(0, 10, +1);
	update_ok(3, 6, +1);
	ck_assert_uint_eq(check_tree(&tree), 3);
	update_ok(3, 6, -1);
	ck_assert_uint_eq(check_tree(&tree), 1);
}
END_TEST

START_TEST(split_inside_one_range_on_drop)
{
	update_ok(0, 10, +1);
	update_ok(4, 5, -1);
	ck_assert_uint_eq(check_tree(&tree), 2);
	update_ok(4, 5, +1);
	ck_assert_uint_eq(check_tree(&tree), 1);
}
END_TEST

START_TEST(neighbours_merge)
{
	update_ok(0, 3, +1);
	update_ok(6, 9, +1);
	update_ok(3, 6, +1);
	ck_assert_uint_eq(check_tree(&tree), 1);
	ck_assert_uint_eq(tree.root->start, pg(0));
	ck_assert_uint_eq(tree.root->end, pg(9));
}
END_TEST

START_TEST(gaps_become_one_call_each)
{
	update_ok(1, 2, +1);
	update_ok(3, 4, +1);
	update_ok(0, 6, +1);	/* three calls: pages 0, 2 and 4-5 */
	ck_assert_uint_eq(fake.ncalls, 3);
	update_ok(0, 6, -1);
	ck_assert_uint_eq(fake.ncalls, 3);
	update_ok(1, 4, -1);
	ck_assert_uint_eq(check_tree(&tree), 0);
}
END_TEST

START_TEST(exact_re_reference_makes_no_call)
{
	update_ok(2, 5, +1);
	update_ok(2, 5, +1);
	ck_assert_uint_eq(fake.ncalls, 0);
	update_ok(2, 5, -1);
	ck_assert_uint_eq(fake.ncalls, 0);
	update_ok(2, 5, -1);
	ck_assert_uint_eq(fake.ncalls, 1);
}
END_TEST

START_TEST(empty_range_is_a_no_op)
{
	update_ok(2, 5, +1);
	fake_reset();
	ck_assert_int_eq(fork_tree_update(&tree, pg(3), pg(3), +1), 0);
	ck_assert_int_eq(fork_tree_update(&tree, pg(3), pg(3), -1), 0);
	ck_assert_int_eq(fork_tree_update(&tree, pg(4), pg(3), +1), 0);
	ck_assert_uint_eq(fake.ncalls, 0);
	check_against_model(&tree);
}
END_TEST

START_TEST(unbalanced_drop_stays_at_zero)
{
	update_ok(0, 4, -1);
	ck_assert_uint_eq(fake.ncalls, 0);
	update_ok(2, 6, +1);
	update_ok(0, 8, -1);	/* only pages 2-5 were counted */
	update_ok(0, 8, -1);
	ck_assert_uint_eq(fake.ncalls, 0);
	update_ok(3, 4, +1);	/* still protected by the next reference */
	ck_assert_uint_eq(fake.ncalls, 1);
}
END_TEST

START_TEST(failure_undoes_earlier_calls)
{
	update_ok(1, 2, +1);
	update_ok(3, 4, +1);
	update_fails(0, 6, +1, 3, ENOMEM);
	update_fails(0, 6, +1, 1, EAGAIN);
	update_ok(0, 6, +1);
	update_fails(0, 6, -1, 2, EINVAL);
	update_ok(0, 6, -1);
}
END_TEST

START_TEST(failure_leaves_splits_undone)
{
	update_ok(0, 10, +1);
	update_fails(2, 12, +1, 1, ENOMEM);
	ck_assert_uint_eq(check_tree(&tree), 1);
	update_fails(4, 6, -1, 1, ENOMEM);
	ck_assert_uint_eq(check_tree(&tree), 1);
}
END_TEST

/* ---- Random sequences against the model ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: small, and the same on every machine. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static void random_ops(uint64_t seed, unsigned int ops, unsigned int max_len)
{
	printf("fork property test: seed %" PRIu64 ", %u ops, ranges up to %u pages\n",
	       seed, ops, max_len);
	fflush(stdout);
	rng_state = seed;
	for (unsigned int op = 0; op < ops; op++) {
		unsigned int a = rng() % NPAGES;
		unsigned int b = a + 1 + rng() % max_len;
		/* Somewhat more adds than drops, so counts climb above 1. */
		int delta = rng() % 5 < 3 ? +1 : -1;
		struct call want[NPAGES];
		unsigned int nwant;

		if (b > NPAGES)
			b = NPAGES;
		nwant = expected_calls(a, b, delta, want);
		if (nwant && rng() % 8 == 0)
			update_fails(a, b, delta, 1 + rng() % nwant, rng() % 2 ? ENOMEM : EAGAIN);
		else
			update_ok(a, b, delta);
	}
}

static const uint64_t seeds[] = { 1, 2, 3, 0x5eed, 20240601, 0xdeadbeefcafe };

START_TEST(random_sequences_match_model)
{
	const char *env = getenv("FORK_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : seeds[_i];

	random_ops(seed, 4000, 12);
	random_ops(seed + 1000, 2000, NPAGES);
}
END_TEST

/* Many distinct ranges, as with 20k registered MRs: balance holds through
 * inserts and removals in random order. */
static unsigned long wide_calls;

static int count_advise(void *addr, size_t len, int advice)
{
	(void)addr;
	(void)len;
	(void)advice;
	wide_calls++;
	return 0;
}

START_TEST(many_ranges_stay_balanced)
{
	struct fork_tree big = { .advise = count_advise };
	enum { N = 20000 };
	static unsigned int order[N];

	rng_state = 77;
	for (unsigned int i = 0; i < N; i++)
		order[i] = i;
	for (int round = 0; round < 2; round++) {
		for (unsigned int i = N - 1; i > 0; i--) {
			unsigned int j = rng() % (i + 1), tmp = order[i];

			order[i] = order[j];
			order[j] = tmp;
		}
		/* Every other page, so that no two ranges touch. */
		for (unsigned int i = 0; i < N; i++) {
			uintptr_t a = BASE + (uintptr_t)order[i] * 2 * PAGE;

			ck_assert_int_eq(fork_tree_update(&big, a, a + PAGE, round ? -1 : +1), 0);
			if (i % 4000 == 0)
				check_tree(&big);
		}
		ck_assert_uint_eq(check_tree(&big), round ? 0 : N);
	}
	ck_assert_uint_eq(wide_calls, 2 * N);
	fork_tree_clear(&big);
}
END_TEST

/* ---- smaps parsing ---- */

/* addresses that a 32-bit process can have too */
static const char smaps_text[] =
	"00400000-00401000 r-xp 00000000 08:01 123 /bin/x\n"
	"Size:                  4 kB\n"
	"KernelPageSize:        4 kB\n"
	"MMUPageSize:           4 kB\n"
	"f7000000-f7400000 rw-s 00000000 00:0f 99 /dev/hugepages/buf (deleted)\n"
	"Size:               4096 kB\n"
	"AnonHugePages:         0 kB\n"
	"KernelPageSize:     2048 kB\n"
	"MMUPageSize:        2048 kB\n"
	"VmFlags: rd wr sh mr mw me ms de ht\n"
	"f7400000-f7401000 rw-p 00000000 00:00 0\n"
	"KernelPageSize:        4 kB\n";

static size_t smaps_lookup(uintptr_t addr)
{
	FILE *f = fmemopen((void *)smaps_text, sizeof(smaps_text) - 1, "r");
	size_t size;

	ck_assert_ptr_nonnull(f);
	size = fork_smaps_page_size(f, addr);
	fclose(f);
	return size;
}

START_TEST(smaps_page_size_of_each_mapping)
{
	ck_assert_uint_eq(smaps_lookup(0x400000), 4096);
	ck_assert_uint_eq(smaps_lookup(0xf7000000), 2 << 20);
	ck_assert_uint_eq(smaps_lookup(0xf73fffff), 2 << 20);
	ck_assert_uint_eq(smaps_lookup(0xf7400000), 4096);
	ck_assert_uint_eq(smaps_lookup(0x401000), 0);
	ck_assert_uint_eq(smaps_lookup(0xf7401000), 0);
}
END_TEST

/* ---- Public API on real memory (each test in its own process) ---- */

static long page_size;

static char *map_pages(unsigned int n)
{
	char *p = mmap(NULL, n * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static bool no_copy_on_fork(void)
{
	return false;
}

static bool copy_on_fork(void)
{
	return true;
}

/* The kernel's own answer, before real_setup() decides for the tests. */
static bool (*kernel_copies_on_fork)(void);

static void real_setup(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	/* This host may or may not have RDMA netlink: decide for the test. */
	verbs_fork_kernel_copies_on_fork = no_copy_on_fork;
	unsetenv("RDMAV_FORK_SAFE");
	unsetenv("IBV_FORK_SAFE");
	unsetenv("RDMAV_HUGEPAGES_SAFE");
}

START_TEST(disabled_until_init)
{
	char *p = map_pages(2);

	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_ENABLED);
	ck_assert_int_eq(ibv_dontfork_range(p, page_size), 0);
	ck_assert(unit_dontfork(p));
	ck_assert(!unit_dontfork(p + page_size));
}
END_TEST

START_TEST(unaligned_range_covers_whole_pages)
{
	char *p = map_pages(4);

	ck_assert_int_eq(ibv_fork_init(), 0);
	/* Last byte of page 0 to first byte of page 2. */
	ck_assert_int_eq(ibv_dontfork_range(p + page_size - 1, page_size + 2), 0);
	ck_assert(unit_dontfork(p));
	ck_assert(unit_dontfork(p + page_size));
	ck_assert(unit_dontfork(p + 2 * page_size));
	ck_assert(!unit_dontfork(p + 3 * page_size));
	ck_assert_int_eq(ibv_dontfork_range(p + 10, 1), 0);
	ck_assert_int_eq(ibv_dofork_range(p + page_size - 1, page_size + 2), 0);
	ck_assert(unit_dontfork(p));
	ck_assert(!unit_dontfork(p + page_size));
	ck_assert_int_eq(ibv_dofork_range(p, 1), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_dontfork_range(p, 0), 0);
	ck_assert(!unit_dontfork(p));
}
END_TEST

static void exit_on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

START_TEST(child_does_not_get_the_pages)
{
	char *p = map_pages(2);
	int status;
	pid_t pid;

	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_dontfork_range(p, page_size), 0);
	p[0] = 1;
	p[page_size] = 2;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Still mapped in the child: this read must succeed. */
		if (p[page_size] != 2)
			_exit(3);
		signal(SIGSEGV, exit_on_segv);
		(void)*(volatile char *)p;	/* not mapped */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
}
END_TEST

START_TEST(range_call_first_makes_init_fail)
{
	char *p = map_pages(1);

	ck_assert_int_eq(ibv_dontfork_range(p, page_size), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_fork_init(), EINVAL);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
}
END_TEST

START_TEST(copy_on_fork_kernel_needs_nothing)
{
	char *p = map_pages(1);

	verbs_fork_kernel_copies_on_fork = copy_on_fork;
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_dontfork_range(p, page_size), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_dofork_range(p, page_size), 0);
	/* Even a late init succeeds: there is nothing to set up. */
	ck_assert_int_eq(ibv_fork_init(), 0);
}
END_TEST

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	close(fd);
	return fd;
}

/* The real question, on whatever kernel runs the tests (with RDMA netlink
 * or without, as on most build hosts): errno and the descriptor table
 * come out as they went in, whatever the answer. */
START_TEST(copy_on_fork_query_leaves_no_trace)
{
	int free_fd = lowest_free_fd();

	errno = EDOM;
	kernel_copies_on_fork();
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(lowest_free_fd(), free_fd);
}
END_TEST

START_TEST(madvise_error_is_returned_in_errno)
{
	char *p = map_pages(3);

	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(munmap(p + page_size, page_size), 0);
	errno = 0;
	ck_assert_int_eq(ibv_dontfork_range(p, 3 * page_size), -1);
	ck_assert_int_eq(errno, ENOMEM);
	/* Rolled back: the mapped pages around the hole are left as they were. */
	ck_assert(!unit_dontfork(p));
	ck_assert(!unit_dontfork(p + 2 * page_size));
	ck_assert_int_eq(ibv_dontfork_range(p + 2 * page_size, page_size), 0);
	ck_assert(unit_dontfork(p + 2 * page_size));
}
END_TEST

START_TEST(range_past_the_address_space_is_einval)
{
	ck_assert_int_eq(ibv_fork_init(), 0);
	errno = 0;
	ck_assert_int_eq(ibv_dontfork_range((void *)(UINTPTR_MAX - 10), 100), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_dofork_range((void *)-(uintptr_t)page_size, page_size), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(environment_enables_at_library_init)
{
	static const struct {
		const char *rdmav, *ibv;
		bool enables;
	} cases[] = {
		{ NULL, NULL, false }, { "0", NULL, false }, { NULL, "0", false },
		{ "1", NULL, true }, { "", NULL, true }, { "00", NULL, true },
		{ NULL, "yes", true }, { "0", "1", true },
	};
	const int i = _i;

	if (cases[i].rdmav)
		setenv("RDMAV_FORK_SAFE", cases[i].rdmav, 1);
	if (cases[i].ibv)
		setenv("IBV_FORK_SAFE", cases[i].ibv, 1);
	ck_assert_int_eq(verbs_fork_init_from_env(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(),
			 cases[i].enables ? IBV_FORK_ENABLED : IBV_FORK_DISABLED);
}
END_TEST

START_TEST(huge_pages_safe_uses_the_mapping_page_size)
{
	char *p = map_pages(3);

	setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_dontfork_range(p + page_size + 5, 10), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert(unit_dontfork(p + page_size));
	ck_assert(!unit_dontfork(p + 2 * page_size));
	ck_assert_int_eq(ibv_dofork_range(p + page_size, 1), 0);
	ck_assert(!unit_dontfork(p + page_size));
}
END_TEST

enum { THREADS = 4, THREAD_OPS = 3000, SHARED_PAGES = 16 };
static char *shared;

static void *hammer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	for (int i = 0; i < THREAD_OPS; i++) {
		unsigned int a = rand_r(&seed) % SHARED_PAGES;
		unsigned int n = 1 + rand_r(&seed) % (SHARED_PAGES - a);

		if (ibv_dontfork_range(shared + a * page_size, n * page_size) ||
		    ibv_dofork_range(shared + a * page_size, n * page_size))
			return (void *)1;
	}
	return NULL;
}

START_TEST(threads_leave_every_page_balanced)
{
	pthread_t th[THREADS];
	void *ret;

	shared = map_pages(SHARED_PAGES);
	ck_assert_int_eq(ibv_fork_init(), 0);
	/* A reference that outlives the threads: page 0 must stay protected. */
	ck_assert_int_eq(ibv_dontfork_range(shared, page_size), 0);
	for (uintptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_int_eq(pthread_join(th[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
	ck_assert(unit_dontfork(shared));
	for (int i = 1; i < SHARED_PAGES; i++)
		ck_assert(!unit_dontfork(shared + i * page_size));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fork");
	TCase *tc_tree = tcase_create("tree");
	TCase *tc_api = tcase_create("api");

	tcase_add_checked_fixture(tc_tree, setup, teardown);
	tcase_set_timeout(tc_tree, 60);
	tcase_add_test(tc_tree, split_at_both_ends);
	tcase_add_test(tc_tree, split_inside_one_range_on_drop);
	tcase_add_test(tc_tree, neighbours_merge);
	tcase_add_test(tc_tree, gaps_become_one_call_each);
	tcase_add_test(tc_tree, exact_re_reference_makes_no_call);
	tcase_add_test(tc_tree, empty_range_is_a_no_op);
	tcase_add_test(tc_tree, unbalanced_drop_stays_at_zero);
	tcase_add_test(tc_tree, failure_undoes_earlier_calls);
	tcase_add_test(tc_tree, failure_leaves_splits_undone);
	tcase_add_loop_test(tc_tree, random_sequences_match_model, 0,
			    sizeof(seeds) / sizeof(seeds[0]));
	tcase_add_test(tc_tree, many_ranges_stay_balanced);
	tcase_add_test(tc_tree, smaps_page_size_of_each_mapping);
	suite_add_tcase(s, tc_tree);

	tcase_add_checked_fixture(tc_api, real_setup, NULL);
	tcase_add_test(tc_api, disabled_until_init);
	tcase_add_test(tc_api, unaligned_range_covers_whole_pages);
	tcase_add_test(tc_api, child_does_not_get_the_pages);
	tcase_add_test(tc_api, range_call_first_makes_init_fail);
	tcase_add_test(tc_api, copy_on_fork_kernel_needs_nothing);
	tcase_add_test(tc_api, copy_on_fork_query_leaves_no_trace);
	tcase_add_test(tc_api, madvise_error_is_returned_in_errno);
	tcase_add_test(tc_api, range_past_the_address_space_is_einval);
	tcase_add_loop_test(tc_api, environment_enables_at_library_init, 0, 8);
	tcase_add_test(tc_api, huge_pages_safe_uses_the_mapping_page_size);
	tcase_add_test(tc_api, threads_leave_every_page_balanced);
	suite_add_tcase(s, tc_api);

	kernel_copies_on_fork = verbs_fork_kernel_copies_on_fork;
	/* The api tests change process-wide state that cannot be reset (fork
	 * safety, once on, stays on): each must run in a fresh child. */
	return unit_run(s, CK_FORK);
}
