/* SPDX-License-Identifier: MIT */
/*
 * What the rsocket files share.  An rsocket is a number the r* calls take
 * (the fd of its CM event channel for a stream socket, of its UDP socket
 * for a datagram one) mapped to a struct rsocket.  Stream sockets speak the
 * RC protocol of ../shared/abi/rsocket/WIRE.md part A (upstream's wire
 * format, so that either peer may be upstream's library); datagram ones
 * part B.
 *
 * Conventions: as in ../internal.h, internal functions return 0 or a
 * positive errno (byte counts as ssize_t >= 0, or a negative errno), and
 * only the public r* wrapper converts, with cma_fail()/rs_fail_ssize().
 *
 * Owners: index.c config.c socket.c options.c close.c: the socket layer
 * (numbers, the CM side of connection setup, options, shutdown/close);
 * wire.c resources.c data.c iomap.c iomap_reg.c poll.c: the stream
 * engine (buffers, the private data, the RC message protocol,
 * rpoll/rselect); dgram*.c: datagram sockets.
 */
#ifndef OPENVERBS_RSOCKET_RS_H
#define OPENVERBS_RSOCKET_RS_H

#include "../internal.h"

#include <assert.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>

#pragma GCC visibility push(default)
#include <rdma/rsocket.h>
#pragma GCC visibility pop

/* ---- wire format (layouts.txt); sizes checked with static_assert ---- */

struct rs_sge {			/* BE in private data; peer's order in writes */
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

struct rs_iomap {		/* an entry of the peer's iomap table */
	uint64_t offset;
	struct rs_sge sge;
};

#define RS_CONN_VERSION		1
#define RS_CONN_FLAG_NET	0x01	/* the sender is a big-endian host */
#define RS_CONN_FLAG_IOMAP	0x02	/* byte 7 valid, table follows the SGL */

struct rs_conn_data {
	uint8_t version;
	uint8_t flags;
	uint16_t credits;		/* BE */
	uint8_t reserved[3];
	uint8_t target_iomap_size;	/* rs_scale_encode() */
	struct rs_sge target_sgl;	/* BE; length = entry count (2) */
	struct rs_sge data_buf;		/* BE; first half of the ring */
};

static_assert(sizeof(struct rs_sge) == 16, "rs_sge is 16 bytes on the wire");
static_assert(sizeof(struct rs_iomap) == 24, "rs_iomap is 24 bytes on the wire");
static_assert(sizeof(struct rs_conn_data) == 40, "private data is 40 bytes");

/* AF_IB requests carry the block after a CMA-header-sized slot. */
#define RS_AF_IB_HDR_LEN	36

/* Immediate data: op in bits 31..29, argument in 28..0. */
enum rs_op {
	RS_OP_DATA = 0,
	RS_OP_WRITE = 2,		/* local tag of riowrite completions */
	RS_OP_SGL = 4,			/* credit limit, maybe an SGE write */
	RS_OP_IOMAP_SGL = 6,
	RS_OP_CTRL = 7,
};
enum { RS_CTRL_DISCONNECT = 0, RS_CTRL_KEEPALIVE = 1, RS_CTRL_SHUTDOWN = 2 };

static inline uint32_t rs_msg(enum rs_op op, uint32_t arg)
{
	return ((uint32_t)op << 29) | (arg & 0x1fffffff);
}
static inline enum rs_op rs_msg_op(uint32_t msg) { return msg >> 29; }
static inline uint32_t rs_msg_arg(uint32_t msg) { return msg & 0x1fffffff; }

#define RS_OLAP_START_SIZE	2048
#define RS_MAX_TRANSFER		65536
#define RS_SNDLOWAT		2048
#define RS_QP_MIN_SIZE		16
#define RS_QP_MAX_SIZE		65534
#define RS_QP_CTRL_SIZE		4
#define RS_CONN_RETRIES		6
#define RS_SGL_SIZE		2
#define RS_MAX_CTRL_MSG		16
#define RS_MSG_SIZE		4	/* iWARP: the message as a 4-byte SEND */
#define RS_MAX_NUMBER		65535	/* rsocket numbers (and preload fds) */

/* Datagram headers (layouts.txt 6, 7). */
#define DS_UDP_TAG		0x55555555
#define DS_UDP_IPV4_HDR_LEN	16
#define DS_UDP_IPV6_HDR_LEN	28
#define DS_IPV4_HDR_LEN		8
#define DS_IPV6_HDR_LEN		24
#define RS_UDP_QKEY		0x01234567

/* ---- the socket ---- */

/* State bits, as the protocol's state machine (WIRE.md A.10) names them. */
enum {
	RS_INIT			= 0x0000,
	RS_BOUND		= 0x0001,
	RS_LISTENING		= 0x0002,
	RS_OPENING		= 0x0004,
	RS_RESOLVING_ADDR	= 0x0010 | RS_OPENING,
	RS_RESOLVING_ROUTE	= 0x0020 | RS_OPENING,
	RS_CONNECTING		= 0x0040 | RS_OPENING,
	RS_ACCEPTING		= 0x0080 | RS_OPENING,
	RS_CONNECTED		= 0x0100,
	RS_WRITABLE		= 0x0200,
	RS_READABLE		= 0x0400,
	RS_CONNECT_RDWR		= RS_CONNECTED | RS_WRITABLE | RS_READABLE,
	RS_CONNECT_ERROR	= 0x0800,
	RS_DISCONNECTED		= 0x1000,
	RS_ERROR		= 0x2000,
};

/* Process-wide tunables: defaults, then /etc/rdma/rsocket/ (config.c). */
struct rs_config {
	uint32_t mem_default;		/* receive ring bytes */
	uint32_t wmem_default;		/* send buffer bytes */
	uint16_t sqsize_default;
	uint16_t rqsize_default;
	uint16_t inline_default;
	uint16_t iomap_size;
	uint32_t polling_time;		/* us of busy polling before blocking */
	int wake_up_interval;		/* ms, longest internal poll() sleep */
	uint32_t keepalive_time;	/* s, tcp_keepalive_time */
};
extern struct rs_config rs_config;

/* A message the receiver queued: what arrived in one immediate. */
struct rs_rmsg {
	uint32_t op;
	uint32_t data;
};

/* An iomap registration (engine.h). */
struct rs_iomap_mr;

struct rs_dgram;

struct rsocket {
	int type;			/* SOCK_STREAM or SOCK_DGRAM */
	int number;			/* what the r* calls take */
	int domain;			/* AF_INET, AF_INET6, AF_IB */
	unsigned int state;		/* RS_* bits */
	int err;			/* SO_ERROR, positive errno, 0 */
	int fd_flags;			/* O_NONBLOCK as rfcntl set it */

	/* Lock order: slock before rlock before cq_lock; map_lock alone.
	 * slock guards the send side, rlock the receive side, cq_lock the
	 * CQ and its channel (one poller or waiter at a time). */
	pthread_mutex_t slock;
	pthread_mutex_t rlock;
	pthread_mutex_t cq_lock;
	pthread_mutex_t map_lock;
	/* The CM side: connection setup steps and the CM channel's events
	 * (socket.c); taken without slock/rlock held. */
	pthread_mutex_t cm_lock;

	/* Options as stored bits (1 << optname) per level. */
	uint64_t so_opts;
	uint64_t tcp_opts;
	uint64_t ipv6_opts;
	uint32_t keepalive_time;	/* s, 0: keepalive off */
	uint64_t keepalive_due;		/* CLOCK_MONOTONIC ns */
	struct rsocket *keepalive_next;	/* close.c's list of sockets to probe */

	/* Sizes, fixed once resources exist. */
	uint32_t sbuf_size;
	uint32_t rbuf_size;
	uint16_t sq_size;
	uint16_t rq_size;
	uint16_t sq_inline;
	uint16_t target_iomap_size;	/* entries we advertise (byte 7) */
	/* Buffers exist (stream: rs_create_resources() ran; datagram: the
	 * first QP): SO_RCVBUF/SO_SNDBUF no longer change the sizes. */
	bool sizes_fixed;

	/* ---- stream: the CM side (socket layer) ---- */
	struct rdma_cm_id *cm_id;
	struct ibv_path_data *route;	/* RDMA_ROUTE, until connect uses it */
	size_t route_len;
	int retries;			/* address/route resolution attempts */
	struct rsocket *accept_next;	/* listener's queue of new sockets */
	struct rsocket *accept_head;
	struct rsocket *accept_tail;
	int backlog;
	/* Listener: its thread accepts requests as they come (socket.c);
	 * accept_fd (an eventfd, non-blocking) counts the queued sockets,
	 * stop_fd ends the thread. */
	pthread_t listen_thread;
	bool listen_thread_running;
	int accept_fd;
	int stop_fd;

	/* ---- stream: the engine (wire.c resources.c data.c iomap*.c) ---- */
	bool iwarp;			/* messages as 4-byte SENDs */
	bool swap_sgl;			/* the peer's byte order differs */
	struct ibv_comp_channel *cq_channel;
	struct ibv_cq *cq;		/* send and receive */
	bool cq_armed;

	uint8_t *sbuf;			/* send copy ring */
	struct ibv_mr *smr;
	uint32_t sbuf_head;		/* next free byte */
	uint32_t sbuf_bytes_avail;
	uint16_t sqe_avail;		/* send WRs for data and iomap */
	uint16_t ctrl_avail;		/* control slots (RS_QP_CTRL_SIZE) */
	uint16_t sseq_no;		/* credited messages sent */
	uint16_t sseq_comp;		/* the peer's limit */
	struct rs_sge remote_sgl;	/* the peer's target SGL */
	struct rs_sge remote_iomap;	/* the peer's iomap table */
	int remote_sge;			/* next entry of the peer's SGL we fill */
	struct rs_sge *target_sgl;	/* ours: the peer fills it; iomap follows */
	struct ibv_mr *target_mr;
	int target_sge;			/* entry we send into next */

	uint8_t *rbuf;			/* receive ring (+ iWARP message area) */
	struct ibv_mr *rmr;
	uint32_t rbuf_offset;		/* where the next unread byte is */
	uint32_t rbuf_bytes_avail;	/* free, not yet advertised */
	uint32_t rbuf_free_offset;	/* start of the next half to advertise */
	uint16_t rseq_no;		/* data messages consumed */
	uint16_t rseq_comp;		/* when to send a credit update */
	struct rs_rmsg *rmsg;		/* rq_size + 1 slots */
	int rmsg_head;
	int rmsg_tail;

	struct rs_iomap_mr *iomap_list;	/* riomap() registrations */
	struct rs_iomap_mr *iomap_queue;/* to publish at the next send */
	int iomap_pending;
	uint32_t ctrl_stage;		/* next 16-byte staging slot after sbuf */

	/* ---- datagram (dgram.c) ---- */
	struct rs_dgram *ds;
};

/* ---- index.c: numbers to sockets ---- */
int rs_insert(struct rsocket *rs);		/* at rs->number; EBADF/ENOMEM */
void rs_remove(struct rsocket *rs);
struct rsocket *rs_lookup(int number);		/* NULL: not an rsocket */

/* ---- config.c ---- */
void rs_configure(void);			/* once per process */
/* Defaults, then the files in dir and the keepalive time in
 * keepalive_file (the unit test points them at its own files). */
void rs_config_load(struct rs_config *cfg, const char *dir, const char *keepalive_file);

/* ---- socket.c / close.c: connection setup and teardown ---- */
struct rsocket *rs_alloc(const struct rsocket *inherit, int type);
void rs_free(struct rsocket *rs);	/* after rs_remove(); ds_close() first */
/* A non-blocking connect or accept still under way (state & RS_OPENING):
 * drive it.  0 when connected, EINPROGRESS while not yet (data calls
 * report EAGAIN then), else the failure (state RS_CONNECT_ERROR, rs->err
 * set).  Blocks only if the socket is blocking.  Takes cm_lock: call it
 * without slock/rlock held. */
int rs_do_connect(struct rsocket *rs);
/* Reads the CM channel (rs->number) of a connected socket if it has an
 * event: a DISCONNECTED or DEVICE_REMOVAL makes the socket RS_DISCONNECTED
 * and flushes its QP (so CQ waiters wake).  Call it when rs->number polls
 * readable, maybe with slock/rlock held (never cq_lock): it takes only
 * cm_lock (trylock) and does not block. */
void rs_cm_event(struct rsocket *rs);
/* poll(2) events now of a stream socket that is not connected (state
 * without RS_CONNECTED), never blocking: listening: POLLIN when a
 * connection can be accepted; opening: progress (then the connected
 * socket's events if that finished); connect error: POLLIN|POLLOUT (as
 * asked)|POLLERR.  *wait_fd polls readable (POLLIN) when the answer may
 * have changed. */
short rs_cm_poll(struct rsocket *rs, short events, int *wait_fd);
/* O_NONBLOCK of an internal fd. */
int rs_fd_set_nonblocking(int fd, bool nonblocking);

/* ---- close.c ---- */
/* SO_KEEPALIVE on or off; a change of TCP_KEEPIDLE while on. */
int rs_set_keepalive(struct rsocket *rs, bool on);

/* ---- wire.c ---- */
uint8_t rs_scale_encode(uint32_t entries);
uint32_t rs_scale_decode(uint8_t scaled);
void rs_conn_data_build(const struct rsocket *rs, struct rs_conn_data *out);
int rs_conn_data_apply(struct rsocket *rs, const struct rs_conn_data *in);

/* ---- resources.c: QP, CQ, buffers, registrations, posted receives ---- */
int rs_create_resources(struct rsocket *rs);	/* cm_id has its device */
void rs_free_resources(struct rsocket *rs);

/* ---- data.c: the message protocol ---- */
/* Send a CTRL message (rshutdown/rclose); waits for a control slot. */
int rs_send_ctrl(struct rsocket *rs, uint32_t ctrl);
/* Wait until every posted send has completed. */
int rs_drain_sends(struct rsocket *rs);
/* poll(2) events the stream socket has now. */
short rs_stream_poll(struct rsocket *rs, short events);

/* ---- dgram.c ---- */
int ds_socket(struct rsocket *rs, int domain);	/* makes rs->number */
/* The UDP socket's connect(), then the destination rsend() uses. */
int ds_connect(struct rsocket *rs, const struct sockaddr *addr, socklen_t len);
void ds_close(struct rsocket *rs);
ssize_t ds_sendto(struct rsocket *rs, const void *buf, size_t len, int flags,
		  const struct sockaddr *dst, socklen_t dstlen);
ssize_t ds_recvfrom(struct rsocket *rs, void *buf, size_t len, int flags,
		    struct sockaddr *src, socklen_t *srclen);
short ds_poll(struct rsocket *rs, short events);
/* The fd rpoll() waits on (POLLIN) for a datagram socket, armed. */
int ds_poll_fd(struct rsocket *rs);

static inline ssize_t rs_fail_ssize(ssize_t ret)
{
	if (ret >= 0)
		return ret;
	errno = (int)-ret;
	return -1;
}

static inline bool rs_nonblocking(const struct rsocket *rs, int flags)
{
	return (rs->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

#endif
