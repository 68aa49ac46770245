/* SPDX-License-Identifier: MIT */
/*
 * What the datagram rsocket files share (WIRE.md part B): dgram.c has the
 * socket, its UD QPs, new destinations and address handles; dgram_data.c
 * the data path and the destination lookup; dgram_svc.c the UDP service thread that answers the
 * resolution protocol.
 *
 * Locks, in this order: the service's lock (held while it handles a
 * datagram), rs->slock (senders; the service's local deliveries),
 * rs->rlock (receivers), ds->lock (QP list, destinations), rs->cq_lock
 * (CQs, channels, the queue of received messages, send-slot counts).
 */
#ifndef OPENVERBS_RSOCKET_DGRAM_H
#define OPENVERBS_RSOCKET_DGRAM_H

#include "rs.h"

#define DS_SLOT_SIZE	RS_SNDLOWAT	/* one UD message, its header included */
#define DS_GRH_SIZE	40		/* struct ibv_grh, own scatter entry */

enum { DS_UDP_OP_DATA = 0, DS_UDP_OP_CTRL = 7 };

/* In front of a datagram on the UDP socket (layouts.txt 6); only
 * `length` bytes of it are sent. */
struct ds_udp_header {
	uint32_t tag;			/* BE DS_UDP_TAG */
	uint8_t version;		/* 4 or 6: the sending QP's address */
	uint8_t op;
	uint8_t length;
	uint8_t reserved;
	uint32_t qpn;			/* BE, 24 bits */
	union {
		uint32_t ipv4;
		uint8_t ipv6[16];
	} addr;				/* the sending QP's; ignored on receipt */
};

/* In front of every UD message (layouts.txt 7): the sender's address. */
struct ds_header {
	uint8_t version;
	uint8_t length;
	uint16_t port;			/* network order */
	union {
		uint32_t ipv4;
		struct {
			uint32_t flowinfo;
			uint8_t addr[16];
		} ipv6;
	} addr;
};

static_assert(sizeof(struct ds_udp_header) == 28, "UDP header is 28 bytes at most");
static_assert(sizeof(struct ds_header) == 24, "UD header is 24 bytes at most");

union ds_addr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

/* A UD QP on an RDMA_PS_UDP id bound to one local address and the UDP
 * socket's port. */
struct ds_qp {
	struct ds_qp *next;
	struct rdma_cm_id *cm_id;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;		/* sends and receives */
	bool armed;
	union ds_addr src;
	struct ds_header hdr;		/* what its messages carry */
	uint32_t max_msg;		/* bytes per message, header included */
	uint32_t max_inline;		/* what the QP got */
	uint8_t *rbuf;			/* GRH area, then rq_size slots */
	struct ibv_mr *rmr;
	uint8_t *sbuf;			/* sq_size slots */
	struct ibv_mr *smr;
	uint32_t send_next;		/* slot of the next send (slock) */
	uint32_t send_busy;		/* posted, not completed (cq_lock) */
	struct ibv_ah *self_ah;		/* local delivery (service thread) */
};

struct ds_dest {
	union ds_addr addr;
	struct ds_qp *qp;		/* fixed at creation */
	struct ibv_ah *ah;		/* NULL: send over UDP (ds->lock) */
	uint32_t qpn;			/* the peer's (ds->lock) */
};

/* A received message waiting for rrecv: a slot of qp's receive buffer. */
struct ds_rmsg {
	struct ds_qp *qp;
	uint32_t slot;
	uint32_t len;			/* after the GRH */
};

struct rs_dgram {
	int epfd;			/* the QPs' channels and wake_fd */
	int wake_fd;			/* eventfd: "look again" */
	pthread_mutex_t lock;
	struct ds_qp *qps;
	void *dests;			/* tsearch tree of struct ds_dest */
	struct ds_dest *conn_dest;	/* rconnect()ed */
	struct ds_rmsg *rmsg;		/* rq_size, allocated with the first QP */
	uint32_t rmsg_head;
	uint32_t rmsg_count;
	bool cq_waiting;		/* a thread sleeps on epfd (cq_lock) */
	pthread_cond_t cq_cond;		/* it woke */
};

/* dgram.c */
int ds_add_dest(struct rsocket *rs, const union ds_addr *addr, struct ds_dest **out);
struct ibv_ah *ds_create_ah(struct ds_qp *qp, const union ds_addr *dst);

/* dgram_data.c */
/* An address as the destination table keys it (family, port, address,
 * IPv6 scope); EINVAL/EAFNOSUPPORT for what is not IPv4/IPv6. */
int ds_addr_key(const struct sockaddr *sa, socklen_t len, union ds_addr *key);
socklen_t ds_addr_len(const union ds_addr *addr);
int ds_addr_cmp(const void *a, const void *b);	/* of keys, for tsearch */
int ds_get_dest(struct rsocket *rs, const union ds_addr *addr, struct ds_dest **out);
void ds_header_fill(struct ds_header *hdr, const union ds_addr *addr);
uint8_t ds_udp_header_len(const struct ds_qp *qp);
void ds_udp_header_fill(const struct ds_qp *qp, uint8_t op, struct ds_udp_header *hdr);
int ds_post_recv(struct ds_qp *qp, uint32_t slot);
void ds_wake(struct rs_dgram *ds);		/* epfd readable: look again */
/* Queues a message on qp itself, as if from `from`; dropped when no
 * send slot is free (datagrams may be lost). */
void ds_deliver_local(struct rsocket *rs, struct ds_qp *qp, const union ds_addr *from,
		      const void *payload, size_t len);

/* dgram_svc.c */
int ds_svc_add(struct rsocket *rs);
void ds_svc_remove(struct rsocket *rs);

#endif
