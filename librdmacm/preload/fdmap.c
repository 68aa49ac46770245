// SPDX-License-Identifier: MIT
/*
 * Application fd -> struct psock: a 2-level table (64 blocks of 1024
 * entries, fds 0..65535, as upstream's), blocks allocated on first use and
 * never freed, so lookups take no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <rdma/rsocket.h>

#include "preload.h"

#define BLOCK_BITS 10
#define BLOCK_SIZE (1 << BLOCK_BITS)
#define BLOCKS ((PRELOAD_MAX_FD + 1) / BLOCK_SIZE)

static struct psock **_Atomic blocks[BLOCKS];
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

struct psock *fdmap_get(int fd)
{
	struct psock **block;

	if (fd < 0 || fd > PRELOAD_MAX_FD)
		return NULL;
	block = atomic_load_explicit(&blocks[fd >> BLOCK_BITS], memory_order_acquire);
	if (!block)
		return NULL;
	return __atomic_load_n(&block[fd & (BLOCK_SIZE - 1)], __ATOMIC_ACQUIRE);
}

int fdmap_set(int fd, struct psock *ps)
{
	struct psock **block;
	int ret = 0;

	if (fd < 0 || fd > PRELOAD_MAX_FD)
		return ENOMEM;
	pthread_mutex_lock(&map_lock);
	block = atomic_load_explicit(&blocks[fd >> BLOCK_BITS], memory_order_relaxed);
	if (!block) {
		block = calloc(BLOCK_SIZE, sizeof(*block));
		if (block)
			atomic_store_explicit(&blocks[fd >> BLOCK_BITS], block, memory_order_release);
		else
			ret = ENOMEM;
	}
	if (block)
		__atomic_store_n(&block[fd & (BLOCK_SIZE - 1)], ps, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&map_lock);
	return ret;
}

void fdmap_clear(int fd)
{
	struct psock **block;

	if (fd < 0 || fd > PRELOAD_MAX_FD)
		return;
	pthread_mutex_lock(&map_lock);
	block = atomic_load_explicit(&blocks[fd >> BLOCK_BITS], memory_order_relaxed);
	if (block)
		__atomic_store_n(&block[fd & (BLOCK_SIZE - 1)], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&map_lock);
}

struct psock *psock_new(enum psock_kind kind, int sfd)
{
	struct psock *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->kind = kind;
	ps->fork = FORK_NONE;
	ps->sfd = sfd;
	atomic_init(&ps->refs, 1);
	return ps;
}

/* open() is not intercepted: this is libc's. */
int placeholder_open(void)
{
	return open("/dev/null", O_RDONLY);
}

int psock_put(struct psock *ps)
{
	int ret;

	if (atomic_fetch_sub(&ps->refs, 1) != 1)
		return 0;
	ret = ps->kind == PSOCK_RSOCKET ? rclose(ps->sfd) : real.close(ps->sfd);
	free(ps);
	return ret;
}
