// SPDX-License-Identifier: MIT
#include "pingpong.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * On the wire each address is "LID:QPN:PSN:GID" in lower-case hex, 4, 6,
 * 6 and 32 digits (the GID's 16 bytes in network order), sent with its
 * NUL: a fixed 52 bytes, which upstream's programs read in one go.
 */
#define PP_MSG_SIZE sizeof("0000:000000:000000:00000000000000000000000000000000")
/* The client's last word: it has the server's address, the server may go. */
static const char pp_done[] = "done";

/* -c: the sender zeroes the first byte of every page of an otherwise
 * 0x7b buffer, as upstream's programs do; both sides must agree on it. */
#define PP_FILL_BYTE 0x7b

bool pp_common_option(struct pp_options *opts, int letter, const char *arg)
{
	switch (letter) {
	case 'p':
		opts->tcp_port = strtol(arg, NULL, 0);
		return opts->tcp_port >= 0 && opts->tcp_port <= 65535;
	case 'd':
		opts->ib_devname = arg;
		return true;
	case 'i':
		opts->ib_port = strtol(arg, NULL, 0);
		return opts->ib_port >= 1;
	case 's':
		opts->size = strtoul(arg, NULL, 0);
		opts->size_given = true;
		return true;
	case 'm':
		opts->mtu = pp_mtu_from_size(strtol(arg, NULL, 0));
		return opts->mtu != 0;
	case 'r':
		opts->rx_depth = strtoul(arg, NULL, 0);
		return true;
	case 'n':
		opts->iters = strtoul(arg, NULL, 0);
		return true;
	case 'l':
		opts->sl = strtol(arg, NULL, 0);
		return true;
	case 'e':
		opts->use_events = true;
		return true;
	case 'g':
		opts->gidx = strtol(arg, NULL, 0);
		return true;
	case 'c':
		opts->validate = true;
		return true;
	default:
		return false;
	}
}

bool pp_take_servername(struct pp_options *opts, int argc, char *argv[])
{
	if (optind == argc - 1)
		opts->servername = argv[optind];
	return optind >= argc - 1;
}

enum ibv_mtu pp_mtu_from_size(unsigned long size)
{
	switch (size) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

struct ibv_context *pp_open_device(const char *ib_devname)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *device = NULL;
	struct ibv_context *context = NULL;

	if (!list) {
		perror("Failed to get IB devices list");
		return NULL;
	}
	if (!ib_devname) {
		device = list[0];
		if (!device)
			fprintf(stderr, "No IB devices found\n");
	} else {
		for (int i = 0; list[i] && !device; i++)
			if (!strcmp(ibv_get_device_name(list[i]), ib_devname))
				device = list[i];
		if (!device)
			fprintf(stderr, "IB device %s not found\n", ib_devname);
	}
	if (device) {
		context = ibv_open_device(device);
		if (!context)
			fprintf(stderr, "Couldn't get context for %s\n",
				ibv_get_device_name(device));
	}
	ibv_free_device_list(list);
	return context;
}

bool pp_local_address(struct ibv_context *context, int ib_port, int gidx,
		      struct ibv_port_attr *port_attr, struct pp_dest *dest)
{
	if (ibv_query_port(context, ib_port, port_attr)) {
		fprintf(stderr, "Couldn't get port info\n");
		return false;
	}
	dest->lid = port_attr->lid;
	if (port_attr->link_layer != IBV_LINK_LAYER_ETHERNET && !dest->lid) {
		fprintf(stderr, "Couldn't get local LID\n");
		return false;
	}
	memset(&dest->gid, 0, sizeof(dest->gid));
	if (gidx >= 0 && ibv_query_gid(context, ib_port, gidx, &dest->gid)) {
		fprintf(stderr, "can't read sgid of index %d\n", gidx);
		return false;
	}
	return true;
}

uint32_t pp_random_psn(void)
{
	static bool seeded;

	if (!seeded) {
		srand48(getpid() * time(NULL));
		seeded = true;
	}
	return lrand48() & 0xffffff;
}

void pp_print_dest(const char *which, const struct pp_dest *dest, char after_psn)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, dest->gid.raw, gid, sizeof(gid));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x%c GID %s\n",
	       which, dest->lid, dest->qpn, dest->psn, after_psn, gid);
}

static void format_dest(char msg[PP_MSG_SIZE], const struct pp_dest *dest)
{
	int n = snprintf(msg, PP_MSG_SIZE, "%04x:%06x:%06x:", dest->lid,
			 dest->qpn, dest->psn);

	for (unsigned int i = 0; i < sizeof(dest->gid.raw); i++)
		n += snprintf(msg + n, PP_MSG_SIZE - n, "%02x", dest->gid.raw[i]);
}

static bool parse_dest(const char msg[PP_MSG_SIZE], struct pp_dest *dest)
{
	unsigned int lid, qpn, psn, byte;
	int consumed;

	if (msg[PP_MSG_SIZE - 1] != '\0' ||
	    sscanf(msg, "%x:%x:%x:%n", &lid, &qpn, &psn, &consumed) != 3 ||
	    strlen(msg + consumed) != 2 * sizeof(dest->gid.raw))
		return false;
	for (unsigned int i = 0; i < sizeof(dest->gid.raw); i++) {
		if (sscanf(msg + consumed + 2 * i, "%2x", &byte) != 1)
			return false;
		dest->gid.raw[i] = byte;
	}
	dest->lid = lid;
	dest->qpn = qpn;
	dest->psn = psn;
	return true;
}

/* Reads exactly len bytes, or what the peer sent before closing. */
static ssize_t read_full(int sock, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(sock, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? n : (ssize_t)got;
		got += n;
	}
	return got;
}

static bool write_full(int sock, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(sock, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

static bool send_dests(int sock, const struct pp_dest *dests, unsigned int count)
{
	char msg[PP_MSG_SIZE];

	for (unsigned int i = 0; i < count; i++) {
		format_dest(msg, &dests[i]);
		if (!write_full(sock, msg, sizeof(msg)))
			return false;
	}
	return true;
}

static bool receive_dests(int sock, struct pp_dest *dests, unsigned int count)
{
	char msg[PP_MSG_SIZE];

	for (unsigned int i = 0; i < count; i++)
		if (read_full(sock, msg, sizeof(msg)) != (ssize_t)sizeof(msg) ||
		    !parse_dest(msg, &dests[i]))
			return false;
	return true;
}

static struct addrinfo *resolve(const char *host, int port, bool passive)
{
	struct addrinfo hints = {
		.ai_flags = passive ? AI_PASSIVE : 0,
		.ai_family = passive ? AF_INET : AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	char service[8];
	int rc;

	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc) {
		fprintf(stderr, "%s for %s:%d\n", gai_strerror(rc),
			host ? host : "(null)", port);
		return NULL;
	}
	return res;
}

int pp_exchange_client(const struct pp_options *opts, const struct pp_dest *local,
		       struct pp_dest *remote, unsigned int count)
{
	struct addrinfo *res = resolve(opts->servername, opts->tcp_port, false);
	int sock = -1;

	if (!res)
		return -1;
	for (struct addrinfo *ai = res; ai && sock < 0; ai = ai->ai_next) {
		sock = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			      ai->ai_protocol);
		if (sock >= 0 && connect(sock, ai->ai_addr, ai->ai_addrlen)) {
			close(sock);
			sock = -1;
		}
	}
	freeaddrinfo(res);
	if (sock < 0) {
		fprintf(stderr, "Couldn't connect to %s:%d\n", opts->servername,
			opts->tcp_port);
		return -1;
	}
	if (!send_dests(sock, local, count)) {
		fprintf(stderr, "Couldn't send local address\n");
		goto fail;
	}
	if (!receive_dests(sock, remote, count) ||
	    !write_full(sock, pp_done, sizeof(pp_done))) {
		perror("client read/write");
		fprintf(stderr, "Couldn't read/write remote address\n");
		goto fail;
	}
	return sock;
fail:
	close(sock);
	return -1;
}

static int listen_once(int port)
{
	struct addrinfo *res = resolve(NULL, port, true);
	int listener = -1, sock, one = 1;

	if (!res)
		return -1;
	for (struct addrinfo *ai = res; ai && listener < 0; ai = ai->ai_next) {
		listener = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				  ai->ai_protocol);
		if (listener < 0)
			continue;
		setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(listener, ai->ai_addr, ai->ai_addrlen)) {
			close(listener);
			listener = -1;
		}
	}
	freeaddrinfo(res);
	if (listener < 0) {
		fprintf(stderr, "Couldn't listen to port %d\n", port);
		return -1;
	}
	listen(listener, 1);
	sock = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	close(listener);
	if (sock < 0)
		fprintf(stderr, "accept() failed\n");
	return sock;
}

int pp_exchange_server(const struct pp_options *opts, const struct pp_dest *local,
		       struct pp_dest *remote, unsigned int count,
		       bool (*connect_qps)(void *arg, const struct pp_dest *remote),
		       void *arg)
{
	char done[PP_MSG_SIZE];
	int sock = listen_once(opts->tcp_port);

	if (sock < 0)
		return -1;
	if (!receive_dests(sock, remote, count)) {
		perror("server read");
		fprintf(stderr, "Couldn't read remote address\n");
		goto fail;
	}
	if (!connect_qps(arg, remote)) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		goto fail;
	}
	if (!send_dests(sock, local, count)) {
		fprintf(stderr, "Couldn't send local address\n");
		goto fail;
	}
	/* the client's "done": it has our address, so we may close */
	if (read(sock, done, sizeof(done)) <= 0)
		fprintf(stderr, "Couldn't read done from client\n");
	return sock;
fail:
	close(sock);
	return -1;
}

void pp_remote_ah(struct ibv_ah_attr *ah, const struct pp_dest *remote,
		  int sl, int ib_port, int gidx)
{
	static const union ibv_gid no_gid;

	*ah = (struct ibv_ah_attr){
		.dlid = remote->lid,
		.sl = sl,
		.port_num = ib_port,
	};
	if (memcmp(&remote->gid, &no_gid, sizeof(no_gid))) {
		ah->is_global = 1;
		ah->grh.dgid = remote->gid;
		ah->grh.sgid_index = gidx;
		ah->grh.hop_limit = 1;
	}
}

void pp_print_result(const struct timeval *start, unsigned long long bytes,
		     unsigned int iters)
{
	struct timeval end;
	double usec;

	gettimeofday(&end, NULL);
	usec = (end.tv_sec - start->tv_sec) * 1000000.0 + (end.tv_usec - start->tv_usec);
	printf("%llu bytes in %.2f seconds = %.2f Mbit/sec\n", bytes,
	       usec / 1000000., bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", iters,
	       usec / 1000000., usec / iters);
}

void pp_fill_buffer(void *buf, unsigned int size, unsigned int page_size, bool marked)
{
	unsigned char *bytes = buf;

	memset(bytes, PP_FILL_BYTE, size);
	for (unsigned int i = 0; marked && i < size; i += page_size)
		bytes[i] = 0;
}

void pp_check_buffer(const void *buf, unsigned int size, unsigned int page_size)
{
	const unsigned char *bytes = buf;

	fflush(stdout);
	for (unsigned int i = 0; i < size; i += page_size)
		if (bytes[i] != 0)
			fprintf(stderr, "invalid data in page %u\n", i / page_size);
}

void pp_print_bad_wc(const struct ibv_wc *wc)
{
	fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
		ibv_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
}

bool pp_wait_cq_event(struct ibv_comp_channel *channel, struct ibv_cq *cq,
		      unsigned int *unacked)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (ibv_get_cq_event(channel, &ev_cq, &ev_ctx)) {
		fprintf(stderr, "Failed to get cq_event\n");
		return false;
	}
	++*unacked;
	if (ev_cq != cq) {
		fprintf(stderr, "CQ event for unknown CQ %p\n", (void *)ev_cq);
		return false;
	}
	if (ibv_req_notify_cq(cq, 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return false;
	}
	return true;
}
