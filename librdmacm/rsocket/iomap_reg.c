/* SPDX-License-Identifier: MIT */
/*
 * Direct placement (WIRE.md A.8), its registrations, off the data path
 * (compiled for size): riomap() registers a buffer and, for PROT_WRITE,
 * queues it for the peer's iomap table (iomap.c publishes it at the next
 * send call); riounmap() forgets a registration locally, telling the peer
 * nothing.
 */
#include "engine.h"

#include <stdlib.h>
#include <sys/mman.h>

static bool rs_index_used(const struct rs_iomap_mr *list, int index)
{
	for (; list; list = list->next)
		if (list->index == index)
			return true;
	return false;
}

/* Caller holds map_lock: the lowest entry of the peer's table free. */
static int rs_free_index(struct rsocket *rs)
{
	for (uint32_t i = 0; i < rs->remote_iomap.length; i++)
		if (!rs_index_used(rs->iomap_list, (int)i) &&
		    !rs_index_used(rs->iomap_queue, (int)i))
			return (int)i;
	return -1;
}

/* Queued entries go out in riomap() order. */
static void rs_append(struct rs_iomap_mr **list, struct rs_iomap_mr *m)
{
	while (*list)
		list = &(*list)->next;
	m->next = NULL;
	*list = m;
}

off_t riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	struct rsocket *rs = rs_lookup(socket);
	struct rs_iomap_mr *m;
	int access = IBV_ACCESS_LOCAL_WRITE;
	int index = -1;

	if (!rs)
		return cma_fail(EBADF);
	if (rs->type != SOCK_STREAM || !rs->cm_id || !rs->cm_id->pd || !rs->target_sgl ||
	    (prot & ~(PROT_WRITE | PROT_NONE)) || flags)
		return cma_fail(EINVAL);

	pthread_mutex_lock(&rs->map_lock);
	if (prot & PROT_WRITE) {
		index = rs_free_index(rs);
		if (index < 0) {
			pthread_mutex_unlock(&rs->map_lock);
			return cma_fail(ENOMEM);
		}
		access |= IBV_ACCESS_REMOTE_WRITE;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&rs->map_lock);
		return cma_fail(ENOMEM);
	}
	m->mr = ibv_reg_mr(rs->cm_id->pd, buf, len, access);
	if (!m->mr) {
		int err = errno;

		free(m);
		pthread_mutex_unlock(&rs->map_lock);
		return cma_fail(err);
	}
	m->offset = offset == (off_t)-1 ? (uintptr_t)buf : (uint64_t)offset;
	m->index = index;
	if (index >= 0) {
		rs_append(&rs->iomap_queue, m);
		rs->iomap_pending = 1;
	} else {
		rs_push(&rs->iomap_list, m);
	}
	pthread_mutex_unlock(&rs->map_lock);
	return (off_t)m->offset;
}

static bool rs_unlink(struct rs_iomap_mr **list, void *buf, size_t len, struct rs_iomap_mr **out)
{
	for (; *list; list = &(*list)->next) {
		struct rs_iomap_mr *m = *list;

		if (m->mr->addr == buf && m->mr->length == len) {
			*list = m->next;
			*out = m;
			return true;
		}
	}
	return false;
}

int riounmap(int socket, void *buf, size_t len)
{
	struct rsocket *rs = rs_lookup(socket);
	struct rs_iomap_mr *m = NULL;
	bool found;

	if (!rs)
		return cma_fail(EBADF);
	pthread_mutex_lock(&rs->map_lock);
	found = rs_unlink(&rs->iomap_list, buf, len, &m) ||
		rs_unlink(&rs->iomap_queue, buf, len, &m);
	rs->iomap_pending = rs->iomap_queue != NULL;
	pthread_mutex_unlock(&rs->map_lock);
	if (!found)
		return cma_fail(EINVAL);
	/* The peer's entry stays stale: upstream sends nothing (A.8.6). */
	ibv_dereg_mr(m->mr);
	free(m);
	return 0;
}

static void rs_free_list(struct rs_iomap_mr *m)
{
	while (m) {
		struct rs_iomap_mr *next = m->next;

		ibv_dereg_mr(m->mr);
		free(m);
		m = next;
	}
}

void rs_iomap_free_all(struct rsocket *rs)
{
	rs_free_list(rs->iomap_list);
	rs_free_list(rs->iomap_queue);
	rs->iomap_list = rs->iomap_queue = NULL;
	rs->iomap_pending = 0;
}

