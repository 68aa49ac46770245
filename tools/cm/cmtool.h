/* SPDX-License-Identifier: MIT */
/* What the rdma_cm tools share: addresses and waiting for cm events.
 * Every helper returns 0 or -1, having printed why on stderr. */
#ifndef OPENVERBS_CMTOOL_H
#define OPENVERBS_CMTOOL_H

#include <stddef.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* HOST (name or numeric) and PORT into OUT; PASSIVE for an address to
 * listen on, where a NULL host means any. */
int cmtool_getaddr(const char *host, const char *port, int passive,
		   struct sockaddr_storage *out);

/* The next event on CHANNEL, which must be of type WANT: it is acked,
 * unless EVENT is not NULL, where it is returned to be acked by the caller. */
int cmtool_expect(struct rdma_event_channel *channel,
		  enum rdma_cm_event_type want, struct rdma_cm_event **event);

/* rdma_resolve_addr then rdma_resolve_route on ID, waiting on its channel. */
int cmtool_resolve(struct rdma_cm_id *id, struct sockaddr *src,
		   struct sockaddr *dst, int timeout_ms);

/* The next completion of CQ into WC, sleeping on COMP (CQ's completion
 * channel) while there is none. */
int cmtool_next_wc(struct ibv_cq *cq, struct ibv_comp_channel *comp, struct ibv_wc *wc);

/* An integer option from MIN to 2^24 in OUT, or -1. */
int cmtool_number(const char *text, int min, int *out);

#endif
