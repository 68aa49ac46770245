/* SPDX-License-Identifier: MIT */
/*
 * The library's shared state from several threads at once, for
 * ThreadSanitizer (`./run test tsan` builds this program with
 * -fsanitize=thread; in the plain unit suite it checks the results
 * alone): the fork range tree, device discovery rescanning a fake sysfs
 * tree (and a fake netlink answer) while devices are opened and closed,
 * and the kernel command layer on shared contexts, the command
 * transport still to be learnt ("auto") included.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_uverbs.h"
#include "fork.h"
#include "internal.h"
#include "unit.h"

enum { THREADS = 4, ROUNDS = 200 };

/* Runs fn(i) in THREADS threads; each returns NULL or what went wrong. */
static void run_threads(void *(*fn)(void *))
{
	pthread_t t[THREADS];
	void *failure;

	for (intptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn, (void *)i), 0);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], &failure), 0);
		if (failure)
			ck_abort_msg("thread %d: %s", i, (const char *)failure);
	}
}

/* ------------------------------------------------------------------ */
/* Fork ranges                                                         */

enum { PAGES = 32 };
static char *region;
static size_t page;

static bool kernel_does_not_copy(void)
{
	return false;
}

/* Overlapping ranges, each marked and unmarked again: thread i's start
 * and length move with the round, so the tree splits and merges. */
static void *range_thread(void *arg)
{
	intptr_t i = (intptr_t)arg;

	for (int r = 0; r < ROUNDS; r++) {
		size_t first = (i * 3 + r) % (PAGES - 8), len = 1 + (r + i) % 8;
		char *base = region + first * page;

		if (ibv_dontfork_range(base, len * page))
			return "ibv_dontfork_range failed";
		if (ibv_dofork_range(base, len * page))
			return "ibv_dofork_range failed";
	}
	return NULL;
}

START_TEST(fork_ranges_from_threads)
{
	page = sysconf(_SC_PAGESIZE);
	verbs_fork_kernel_copies_on_fork = kernel_does_not_copy;
	ck_assert_int_eq(ibv_fork_init(), 0);
	region = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(region, MAP_FAILED);
	/* held throughout: its pages must stay marked */
	ck_assert_int_eq(ibv_dontfork_range(region + 4 * page, page), 0);
	run_threads(range_thread);
	for (size_t p = 0; p < PAGES; p++)
		ck_assert_msg(unit_dontfork(region + p * page) == (p == 4),
			      "page %zu: dontfork %d", p, unit_dontfork(region + p * page));
	ck_assert_int_eq(ibv_dofork_range(region + 4 * page, page), 0);
	ck_assert(!unit_dontfork(region + 4 * page));
	munmap(region, PAGES * page);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Discovery                                                           */

static struct verbs_context *fake_alloc(struct verbs_device *dev, int cmd_fd, void *private_data)
{
	(void)private_data;
	return unit_bare_context(dev, cmd_fd, true);
}

static const char *const fake_names[] = { "fake*", NULL };
static const struct verbs_provider fake_provider = {
	.name = "fake", .ibdev_patterns = fake_names, .min_abi = 1, .max_abi = 1,
	.alloc_context = fake_alloc, .free_context = unit_bare_context_free,
};
static const struct verbs_provider *const fake_providers[] = { &fake_provider, NULL };

static int no_netlink(struct verbs_list_node *found)
{
	(void)found;
	errno = EOPNOTSUPP;
	return -1;
}

/* RDMA netlink's answer: fake0 on uverbs0. */
static int fake_netlink(struct verbs_list_node *found)
{
	struct verbs_sysfs_dev *sysfs = calloc(1, sizeof(*sysfs));

	if (!sysfs)
		return -1;
	strcpy(sysfs->ibdev_name, "fake0");
	strcpy(sysfs->sysfs_name, "uverbs0");
	sysfs->abi_ver = 1;
	sysfs->node_guid = 0x1122334455667788ULL;
	sysfs->flags = VSYSFS_READ_NODE_GUID;
	sysfs->node_type = IBV_NODE_CA;
	verbs_list_add_tail(found, &sysfs->entry);
	return 1;
}

/* Even threads rescan, odd ones open and close fake0 of their own list. */
static void *discovery_thread(void *arg)
{
	intptr_t i = (intptr_t)arg;

	for (int r = 0; r < ROUNDS; r++) {
		struct ibv_device **list = ibv_get_device_list(NULL);
		struct ibv_device *fake0 = NULL;

		if (!list)
			return "ibv_get_device_list failed";
		for (struct ibv_device **d = list; *d; d++)
			if (!strcmp(ibv_get_device_name(*d), "fake0"))
				fake0 = *d;
		if (fake0 && i % 2) {
			struct ibv_context *ctx = ibv_open_device(fake0);

			if (!ctx || ibv_close_device(ctx)) {
				ibv_free_device_list(list);
				return "fake0 did not open and close";
			}
		}
		ibv_free_device_list(list);
		if (!fake0)
			return "fake0 not listed";
	}
	return NULL;
}

static void discovery_setup(void)
{
	verbs_providers = fake_providers;
	unit_add_device("uverbs0", "fake0", "1\n", true);
}

static void discovery_teardown(void)
{
	unit_tree_clear_devices();
}

START_TEST(rescans_over_sysfs)
{
	verbs_netlink_scanner = no_netlink;
	run_threads(discovery_thread);
}
END_TEST

START_TEST(rescans_over_netlink)
{
	verbs_netlink_scanner = fake_netlink;
	run_threads(discovery_thread);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Kernel commands                                                     */

/* Every thread uses each of these: one that writes, one that issues
 * ioctls, and fresh "auto" ones whose transport the first commands of
 * several threads at once learn (the fake kernel has no ioctl()). */
enum { CONTEXTS = 4 };
static struct ibv_context *contexts[CONTEXTS];

static int ioctl_answering(struct ib_uverbs_ioctl_hdr *hdr)
{
	(void)hdr;
	return ENOTTY;
}

static void *command_thread(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		struct ibv_context *ctx = contexts[r % CONTEXTS];
		struct verbs_cq cq;
		struct ibv_pd pd;

		if (verbs_cmd_alloc_pd(ctx, &pd, NULL))
			return "alloc_pd failed";
		if (verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL))
			return "create_cq failed";
		if (pd.handle != 0x11111111 || cq.cq.handle != 0x11111111)
			return "wrong handles";
	}
	return NULL;
}

START_TEST(commands_on_shared_contexts)
{
	kernel_ioctl = ioctl_answering;
	kernel_write = answering_write;
	contexts[0] = new_ctx("write");
	for (int i = 1; i < CONTEXTS; i++)
		contexts[i] = new_ctx("auto");
	run_threads(command_thread);
	for (int i = 0; i < CONTEXTS; i++)
		free_ctx(contexts[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("threads");
	TCase *fork = tcase_create("fork");
	TCase *discovery = tcase_create("discovery");
	TCase *cmd = tcase_create("commands");
	int status;

	if (!unit_tree_make("/tmp/ov-threads-XXXXXX"))
		return EXIT_FAILURE;
	unit_tree_serve_devices();
	tcase_add_test(fork, fork_ranges_from_threads);
	suite_add_tcase(s, fork);
	tcase_add_checked_fixture(discovery, discovery_setup, discovery_teardown);
	tcase_add_test(discovery, rescans_over_sysfs);
	tcase_add_test(discovery, rescans_over_netlink);
	suite_add_tcase(s, discovery);
	tcase_add_checked_fixture(cmd, setup, NULL);
	tcase_add_test(cmd, commands_on_shared_contexts);
	suite_add_tcase(s, cmd);
	status = unit_run(s, CK_FORK);
	if (!unit_tree_remove())
		status = EXIT_FAILURE;
	return status;
}
