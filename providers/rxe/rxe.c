/* SPDX-License-Identifier: MIT */
/* The rxe provider: registration, contexts, device queries, ring mapping. */
#include <errno.h>
#include <sys/mman.h>

#include "rxe.h"

/* ------------------------------------------------------------------ */
/* Rings                                                               */

int rxe_ring_map(struct rxe_ring *r, int cmd_fd, const struct mminfo *mi, size_t elem_size)
{
	struct rxe_queue_buf *buf;
	uint64_t slots;

	if (mi->size <= sizeof(*buf))
		return EPROTO;
	buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   (off_t)mi->offset);
	if (buf == MAP_FAILED)
		return errno;
	/* Every slot index we compute must stay inside the mapping, and
	 * every element inside its slot. */
	slots = (uint64_t)buf->index_mask + 1;
	if (buf->log2_elem_size >= 32 || (slots & (slots - 1)) ||
	    ((uint64_t)1 << buf->log2_elem_size) < elem_size ||
	    slots << buf->log2_elem_size > mi->size - sizeof(*buf)) {
		munmap(buf, mi->size);
		return EPROTO;
	}
	r->buf = buf;
	r->map_size = mi->size;
	r->mask = buf->index_mask;
	r->log2_elem = buf->log2_elem_size;
	return 0;
}

void rxe_ring_unmap(struct rxe_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->map_size);
	r->buf = NULL;
}

/* ------------------------------------------------------------------ */
/* Moving rings (see rxe.h)                                            */

int rxe_mover_init(struct rxe_ring_mover *m)
{
	m->flags = 0;
	return pthread_mutex_init(&m->lock, NULL);
}

void rxe_mover_destroy(struct rxe_ring_mover *m)
{
	pthread_mutex_destroy(&m->lock);
}

int rxe_ring_end_lock_slow(pthread_spinlock_t *lock, struct rxe_ring_mover *m)
{
	while (m->flags & RXE_RING_MOVING) {
		pthread_spin_unlock(lock);
		pthread_mutex_lock(&m->lock);
		pthread_mutex_unlock(&m->lock);
		pthread_spin_lock(lock);
	}
	if (!m->flags)
		return 0;
	pthread_spin_unlock(lock);
	return EIO;
}

void rxe_move_begin(struct rxe_ring_mover *m, pthread_spinlock_t *lock)
{
	pthread_mutex_lock(&m->lock);
	pthread_spin_lock(lock);
	m->flags |= RXE_RING_MOVING;
	pthread_spin_unlock(lock);
}

/* A lost ring stays mapped, out of reach, until a later move replaces it
 * or the object is destroyed: the kernel left it, but the mapping keeps
 * the memory.  A failed command leaves a lost ring lost. */
int rxe_move_end(struct rxe_ring_mover *m, pthread_spinlock_t *lock, struct rxe_ring *ring,
		 int cmd_fd, const struct mminfo *moved_to, size_t elem_size)
{
	struct rxe_ring fresh = {}, old = {};
	int ret = moved_to ? rxe_ring_map(&fresh, cmd_fd, moved_to, elem_size) : 0;

	pthread_spin_lock(lock);
	m->flags &= ~RXE_RING_MOVING;
	if (moved_to && !ret) {
		old = *ring;
		*ring = fresh;
		m->flags &= ~RXE_RING_LOST;
	} else if (moved_to) {
		m->flags |= RXE_RING_LOST;
	}
	pthread_spin_unlock(lock);
	rxe_ring_unmap(&old);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

static const struct verbs_ops rxe_ops = {
	.bind_mw = rxe_bind_mw,
	.create_cq = rxe_create_cq,
	.create_cq_ex = rxe_create_cq_ex,
	.poll_cq = rxe_poll_cq,
	.resize_cq = rxe_resize_cq,
	.destroy_cq = rxe_destroy_cq,
	.create_srq_ex = rxe_create_srq_ex,
	.modify_srq = rxe_modify_srq,
	.destroy_srq = rxe_destroy_srq,
	.post_srq_recv = rxe_post_srq_recv,
	.create_qp_ex = rxe_create_qp_ex,
	.modify_qp = rxe_modify_qp,
	.destroy_qp = rxe_destroy_qp,
	.post_send = rxe_post_send,
	.post_recv = rxe_post_recv,
	.create_ah = rxe_create_ah,
	.destroy_ah = rxe_destroy_ah,
};

/* The kernel needs no private data to set up an rxe context. */
static struct verbs_context *rxe_alloc_context(struct verbs_device *dev, int cmd_fd,
					       void *private_data)
{
	(void)private_data;
	return verbs_plain_context(dev, cmd_fd, &rxe_ops, NULL);
}

static struct verbs_context *rxe_import_context(struct verbs_device *dev, int cmd_fd)
{
	return verbs_plain_import_context(dev, cmd_fd, &rxe_ops);
}

static const char *const rxe_ibdev_patterns[] = { "rxe*", NULL };

/* Listed in the generated table of built-in providers (-Dproviders). */
const struct verbs_provider verbs_provider_rxe = {
	.name = "rxe",
	.driver_id = RDMA_DRIVER_RXE,
	.ibdev_patterns = rxe_ibdev_patterns,
	.min_abi = RXE_ABI_VERSION,
	.max_abi = RXE_ABI_VERSION,
	.alloc_context = rxe_alloc_context,
	.import_context = rxe_import_context,
	.free_context = verbs_free_plain_context,
};
