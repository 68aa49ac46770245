/* SPDX-License-Identifier: MIT */
/*
 * Fork safety's public API: ibv_fork_init(), ibv_is_fork_initialized()
 * and the range calls that keep pinned buffers out of a child (see
 * fork.h), unnecessary on kernels that copy pinned pages into the child
 * (which RDMA netlink tells, see netlink.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork.h"
#include "netlink.h"

/* ---- Kernel copy-on-fork support ---- */

/* Asked over RDMA netlink (netlink.c); a build without it never knows. */
bool (*verbs_fork_kernel_copies_on_fork)(void) = verbs_netlink_copies_on_fork;

static pthread_once_t copy_on_fork_once = PTHREAD_ONCE_INIT;
static bool copy_on_fork;

static void ask_kernel(void)
{
	copy_on_fork = verbs_fork_kernel_copies_on_fork();
}

static bool kernel_copies_on_fork(void)
{
	pthread_once(&copy_on_fork_once, ask_kernel);
	return copy_on_fork;
}

/* ---- Public API ---- */

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fork_tree pinned = { .advise = madvise };
/* Set once; the range calls read it without the lock. */
static atomic_bool fork_enabled;
/* A range call came while disabled: buffers may already be pinned. */
static atomic_bool fork_too_late;
static size_t page_size;
static bool huge_pages_safe;

int ibv_fork_init(void)
{
	int ret = 0;

	if (kernel_copies_on_fork())
		return 0;
	pthread_mutex_lock(&fork_lock);
	if (!atomic_load(&fork_enabled)) {
		if (atomic_load(&fork_too_late)) {
			ret = EINVAL;
		} else {
			page_size = sysconf(_SC_PAGESIZE);
			huge_pages_safe = getenv("RDMAV_HUGEPAGES_SAFE") != NULL;
			atomic_store(&fork_enabled, true);
		}
	}
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	if (kernel_copies_on_fork())
		return IBV_FORK_UNNEEDED;
	return atomic_load(&fork_enabled) ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

static bool env_asks(const char *name)
{
	const char *value = getenv(name);

	return value && strcmp(value, "0") != 0;
}

int verbs_fork_init_from_env(void)
{
	if (!env_asks("RDMAV_FORK_SAFE") && !env_asks("IBV_FORK_SAFE"))
		return 0;
	return ibv_fork_init();
}

/* The pages a range is widened to: the mapping's own when huge pages
 * were declared safe to use, else the base page size. */
static size_t range_page_size(uintptr_t addr)
{
	size_t size = huge_pages_safe ? fork_mapping_page_size(addr) : 0;

	return size ? size : page_size;
}

static int update_range(void *base, size_t size, int delta)
{
	uintptr_t start = (uintptr_t)base, last;
	size_t page;
	int err;

	if (!atomic_load_explicit(&fork_enabled, memory_order_acquire)) {
		if (!atomic_load_explicit(&fork_too_late, memory_order_relaxed))
			atomic_store(&fork_too_late, true);
		return 0;
	}
	if (!size)
		return 0;
	page = range_page_size(start);
	/* [start, end) cannot describe a range reaching the top page. */
	if (size - 1 > UINTPTR_MAX - start ||
	    ((start + size - 1) | (page - 1)) == UINTPTR_MAX) {
		errno = EINVAL;
		return -1;
	}
	last = (start + size - 1) | (page - 1);

	pthread_mutex_lock(&fork_lock);
	err = fork_tree_update(&pinned, start & ~(uintptr_t)(page - 1), last + 1, delta);
	pthread_mutex_unlock(&fork_lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int ibv_dontfork_range(void *base, size_t size)
{
	return update_range(base, size, +1);
}

int ibv_dofork_range(void *base, size_t size)
{
	return update_range(base, size, -1);
}
