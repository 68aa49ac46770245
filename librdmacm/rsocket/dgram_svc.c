// SPDX-License-Identifier: MIT
/*
 * The UDP service (WIRE.md B.3): one thread for all datagram rsockets of
 * the process, started with the first and stopped with the last.  It
 * reads their UDP sockets, answers each DATA datagram with a CTRL reply
 * naming our QP, makes the address handle to the sender, and hands DATA
 * payloads to the socket's own QP as if they had come over UD.
 */
#include "dgram.h"

#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

static struct {
	pthread_mutex_t lock;		/* the set; held while handling datagrams */
	pthread_mutex_t life;		/* starting and stopping the thread */
	struct rsocket **socks;
	int count;
	int cap;
	unsigned int gen;		/* changes with the set */
	bool running;
	bool stop;
	pthread_t thread;
} svc = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.life = PTHREAD_MUTEX_INITIALIZER,
};
/* Outside svc, whose zero initializer keeps it out of the file (.bss). */
static int svc_wake_fd = -1;		/* eventfd: the set changed */

static void svc_wake(void)
{
	uint64_t one = 1;

	if (write(svc_wake_fd, &one, sizeof(one)) < 0)
		return;		/* already signalled */
}

static void svc_drain_wake(void)
{
	uint64_t count;

	if (read(svc_wake_fd, &count, sizeof(count)) < 0)
		return;		/* another look found it empty */
}

static bool svc_header_valid(const struct ds_udp_header *hdr, ssize_t len,
			     const union ds_addr *from)
{
	if (len < DS_UDP_IPV4_HDR_LEN || hdr->tag != htonl(DS_UDP_TAG) || len < hdr->length)
		return false;
	if (hdr->op != DS_UDP_OP_DATA && hdr->op != DS_UDP_OP_CTRL)
		return false;
	if (hdr->version == 4)
		return hdr->length == DS_UDP_IPV4_HDR_LEN && from->sa.sa_family == AF_INET;
	return hdr->version == 6 && hdr->length == DS_UDP_IPV6_HDR_LEN &&
	       from->sa.sa_family == AF_INET6;
}

static void svc_reply(struct rsocket *rs, const struct ds_dest *dest)
{
	struct ds_udp_header hdr;

	ds_udp_header_fill(dest->qp, DS_UDP_OP_CTRL, &hdr);
	if (sendto(rs->number, &hdr, hdr.length, MSG_DONTWAIT, &dest->addr.sa,
		   ds_addr_len(&dest->addr)) < 0)
		return;		/* the peer asks again with its next datagram */
}

/* The peer's QPN, and an AH to it if there is none yet (an AH does not
 * depend on the QPN: a restarted peer needs no new one). */
static void svc_learn(struct rsocket *rs, struct ds_dest *dest, uint32_t qpn)
{
	struct rs_dgram *ds = rs->ds;
	struct ibv_ah *ah;
	bool need_ah;

	pthread_mutex_lock(&ds->lock);
	dest->qpn = qpn;
	need_ah = !dest->ah;
	pthread_mutex_unlock(&ds->lock);
	if (!need_ah)
		return;
	/* resolving takes up to seconds: only this thread makes AHs */
	ah = ds_create_ah(dest->qp, &dest->addr);
	if (!ah)
		return;
	pthread_mutex_lock(&ds->lock);
	dest->ah = ah;
	pthread_mutex_unlock(&ds->lock);
}

static void svc_datagram(struct rsocket *rs, const uint8_t *buf, ssize_t len,
			 const struct sockaddr *from_sa, socklen_t from_len)
{
	const struct ds_udp_header *hdr = (const void *)buf;
	struct ds_dest *dest;
	union ds_addr from;

	if (ds_addr_key(from_sa, from_len, &from) || !svc_header_valid(hdr, len, &from))
		return;
	if (ds_get_dest(rs, &from, &dest))
		return;
	if (hdr->op == DS_UDP_OP_DATA)
		svc_reply(rs, dest);
	svc_learn(rs, dest, ntohl(hdr->qpn) & 0xffffff);
	if (hdr->op == DS_UDP_OP_DATA)
		ds_deliver_local(rs, dest->qp, &from, buf + hdr->length,
				 (size_t)(len - hdr->length));
}

/* Everything queued on the socket.  Upstream reads at most 2048 bytes;
 * we take what a 2048-byte UD slot can hold after our header. */
static void svc_receive(struct rsocket *rs)
{
	uint8_t buf[DS_UDP_IPV6_HDR_LEN + DS_SLOT_SIZE];
	struct sockaddr_storage from;
	socklen_t from_len;
	ssize_t len;

	for (;;) {
		from_len = sizeof(from);
		len = recvfrom(rs->number, buf, sizeof(buf), MSG_DONTWAIT,
			       (struct sockaddr *)&from, &from_len);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return;
		svc_datagram(rs, buf, len, (struct sockaddr *)&from, from_len);
	}
}

/* The poll set for svc.gen: the wake eventfd, then each socket. */
static struct pollfd *svc_poll_set(struct pollfd *fds, int *nfds)
{
	struct pollfd *grown;
	int i;

	grown = realloc(fds, sizeof(*fds) * (size_t)(svc.count + 1));
	if (!grown) {
		*nfds = 1;	/* only the wake-up, until the set changes */
		return fds;
	}
	grown[0] = (struct pollfd){ .fd = svc_wake_fd, .events = POLLIN };
	for (i = 0; i < svc.count; i++)
		grown[i + 1] = (struct pollfd){ .fd = svc.socks[i]->number, .events = POLLIN };
	*nfds = svc.count + 1;
	return grown;
}

static void *svc_run(void *arg)
{
	struct pollfd *fds = NULL, wake = { .fd = svc_wake_fd, .events = POLLIN };
	unsigned int gen;
	int nfds = 0, i;

	(void)arg;
	pthread_mutex_lock(&svc.lock);
	gen = svc.gen - 1;
	while (!svc.stop) {
		if (gen != svc.gen) {
			fds = svc_poll_set(fds, &nfds);
			gen = svc.gen;
		}
		pthread_mutex_unlock(&svc.lock);
		poll(fds ? fds : &wake, fds ? (nfds_t)nfds : 1, -1);
		pthread_mutex_lock(&svc.lock);
		if (fds && fds[0].revents)
			svc_drain_wake();
		/* after a change, an fd in fds may be another file now */
		if (gen != svc.gen || !fds)
			continue;
		for (i = 1; i < nfds; i++) {
			if (fds[i].revents & POLLIN)
				svc_receive(svc.socks[i - 1]);
		}
	}
	pthread_mutex_unlock(&svc.lock);
	free(fds);
	return NULL;
}

static int svc_start(void)
{
	sigset_t all, old;
	int ret;

	if (svc_wake_fd < 0) {
		svc_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (svc_wake_fd < 0)
			return errno;
	}
	/* signals are for the application's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&svc.thread, NULL, svc_run, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		svc.running = true;
	return ret;
}

int ds_svc_add(struct rsocket *rs)
{
	struct rsocket **grown;
	int ret = 0;

	pthread_mutex_lock(&svc.life);
	pthread_mutex_lock(&svc.lock);
	if (svc.count == svc.cap) {
		grown = realloc(svc.socks, sizeof(*grown) * (size_t)(svc.cap ? svc.cap * 2 : 8));
		if (!grown) {
			ret = ENOMEM;
			goto out;
		}
		svc.socks = grown;
		svc.cap = svc.cap ? svc.cap * 2 : 8;
	}
	if (!svc.running)
		ret = svc_start();
	if (ret)
		goto out;
	svc.socks[svc.count++] = rs;
	svc.gen++;
	svc_wake();
out:
	pthread_mutex_unlock(&svc.lock);
	pthread_mutex_unlock(&svc.life);
	return ret;
}

void ds_svc_remove(struct rsocket *rs)
{
	bool last;
	int i;

	pthread_mutex_lock(&svc.life);
	pthread_mutex_lock(&svc.lock);
	for (i = 0; i < svc.count && svc.socks[i] != rs; i++)
		;
	if (i < svc.count)
		svc.socks[i] = svc.socks[--svc.count];
	svc.gen++;
	last = !svc.count && svc.running;
	svc.stop = last;
	svc_wake();
	pthread_mutex_unlock(&svc.lock);
	if (last) {
		pthread_join(svc.thread, NULL);
		svc.stop = false;
		svc.running = false;
	}
	pthread_mutex_unlock(&svc.life);
}
