/* SPDX-License-Identifier: MIT */
/*
 * rsocket numbers to sockets.  Numbers are fds (0..RS_MAX_NUMBER), so the
 * map is a two-level table: blocks of slots allocated on first use and
 * kept for the process's life, so that lookups, the hot path of every r*
 * call, read without a lock.  Writers serialise on a mutex.
 */
#include <stdlib.h>

#include "rs.h"

enum {
	RS_BLOCK_BITS = 10,
	RS_BLOCK_SLOTS = 1 << RS_BLOCK_BITS,
	RS_BLOCKS = (RS_MAX_NUMBER + 1) / RS_BLOCK_SLOTS,
};

static struct rsocket **rs_blocks[RS_BLOCKS];
static pthread_mutex_t rs_index_lock = PTHREAD_MUTEX_INITIALIZER;

int rs_insert(struct rsocket *rs)
{
	struct rsocket **block;
	int number = rs->number;
	int ret = 0;

	if (number < 0)
		return EBADF;
	/* Above the table's reach: upstream's index says ENOMEM too. */
	if (number > RS_MAX_NUMBER)
		return ENOMEM;
	pthread_mutex_lock(&rs_index_lock);
	block = rs_blocks[number >> RS_BLOCK_BITS];
	if (!block) {
		block = calloc(RS_BLOCK_SLOTS, sizeof(*block));
		if (!block) {
			ret = ENOMEM;
			goto out;
		}
		__atomic_store_n(&rs_blocks[number >> RS_BLOCK_BITS], block, __ATOMIC_RELEASE);
	}
	if (block[number & (RS_BLOCK_SLOTS - 1)])
		ret = EBADF;		/* the fd is somebody's already */
	else
		__atomic_store_n(&block[number & (RS_BLOCK_SLOTS - 1)], rs, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&rs_index_lock);
	return ret;
}

void rs_remove(struct rsocket *rs)
{
	struct rsocket **block;
	int number = rs->number;

	if (number < 0 || number > RS_MAX_NUMBER)
		return;
	pthread_mutex_lock(&rs_index_lock);
	block = rs_blocks[number >> RS_BLOCK_BITS];
	if (block && block[number & (RS_BLOCK_SLOTS - 1)] == rs)
		__atomic_store_n(&block[number & (RS_BLOCK_SLOTS - 1)], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rs_index_lock);
}

struct rsocket *rs_lookup(int number)
{
	struct rsocket **block;

	if (number < 0 || number > RS_MAX_NUMBER)
		return NULL;
	block = __atomic_load_n(&rs_blocks[number >> RS_BLOCK_BITS], __ATOMIC_ACQUIRE);
	if (!block)
		return NULL;
	return __atomic_load_n(&block[number & (RS_BLOCK_SLOTS - 1)], __ATOMIC_ACQUIRE);
}
