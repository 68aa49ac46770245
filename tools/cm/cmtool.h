/* SPDX-License-Identifier: MIT */
/* What the rdma_cm tools share: addresses and waiting for cm events.
 * Every helper returns 0 or -1, having printed why on stderr. */
#ifndef OPENVERBS_CMTOOL_H
#define OPENVERBS_CMTOOL_H

#include <stdbool.h>
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

/* The options ucmatose and udaddy share, with the same meaning. */
struct cm_options {
	const char *server, *bind_addr;
	int connections, count, size;
	int tos;                /* -1: not set */
};

/* OPT (a getopt result) with its ARG into OPTIONS when it is one of the
 * shared -s -b -f -c -C -S -t; -1 for any other option or a bad value. */
int cmtool_common_option(int opt, const char *arg, struct cm_options *options);

/* A UD endpoint of udaddy and mckey on ID: one buffer of COUNT receive
 * slots, then the send slot, each a GRH and SIZE bytes. */
struct cmtool_ud_node {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	size_t slot;
	struct ibv_ah *ah;
};

/* PD, completion channel, CQ, buffer, MR and UD QP on N->id for COUNT
 * messages of SIZE bytes each way, and, if POST_RECVS, a receive in each
 * slot; errors are printed after PROGRAM. */
int cmtool_ud_node_setup(struct cmtool_ud_node *n, const char *program, int count,
			 int size, bool post_recvs);

/* Everything cmtool_ud_node_setup made, the address handle and the id. */
void cmtool_ud_node_destroy(struct cmtool_ud_node *n);

#endif
