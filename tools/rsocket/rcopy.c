// SPDX-License-Identifier: MIT
/* rcopy: copies a file to a server over one rsocket.  The messages, as
 * upstream's (observed in the guest on rsend/rrecv), start with a 16-byte
 * header, little endian:
 *   u8 version (0), u8 op, u16 message length, u32 value, 8 bytes zero
 * op 1 (open): value is the file's mode, the header is followed by the
 *   destination's path, NUL-terminated and padded to 8 bytes;
 * op 3 (write): followed by the u64 file size, then the file's bytes;
 * op 2 (close).
 * The server answers each with a bare header, op | 0x80, whose value is
 * 0 or the errno of what failed.  It writes the file at the path given
 * (relative paths from its working directory) and serves clients one
 * after another, forever. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rstool.h"

#define DEFAULT_PORT "7427"
#define HEADER_SIZE 16
#define REPLY_FLAG 0x80

enum op { OP_OPEN = 1, OP_CLOSE = 2, OP_WRITE = 3 };

struct header {
	uint8_t version;
	uint8_t op;
	uint16_t length;        /* little endian, header included */
	uint32_t value;         /* little endian */
	uint8_t reserved[8];
};
_Static_assert(sizeof(struct header) == HEADER_SIZE, "rcopy's header is 16 bytes");

static void usage(const char *program)
{
	fprintf(stderr, "usage 1: %s [options]\n", program);
	fprintf(stderr, "\t     starts the server application\n");
	fprintf(stderr, "\t[-p  port_number]\n");
	fprintf(stderr, "usage 2: %s source server[:destination] [options]\n", program);
	fprintf(stderr, "\t     source - file name and path\n");
	fprintf(stderr, "\t     server - name or address\n");
	fprintf(stderr, "\t     destination - file name and path\n");
	fprintf(stderr, "\t[-p  port_number]\n");
	exit(1);
}

static struct rs_conn stream = { .calls = &rs_rsocket_calls, .fd = -1, .wait = RS_BLOCKING };

static int send_reply(uint8_t op, int status)
{
	struct header reply = {
		.op = op | REPLY_FLAG,
		.length = htole16(HEADER_SIZE),
		.value = htole32(status),
	};

	return rs_send_all(&stream, &reply, sizeof(reply));
}

/* Receives the file body straight into the destination's mapping. */
static int receive_body(int fd, uint64_t size)
{
	void *map;
	int ret;

	if (ftruncate(fd, size)) {
		perror("ftruncate");
		return errno;
	}
	if (!size)
		return 0;
	map = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return errno;
	}
	ret = rs_recv_all(&stream, map, size) ? EIO : 0;
	munmap(map, size);
	return ret;
}

/* One client's session; -1 when the connection is lost. */
static int serve_client(void)
{
	int file = -1;

	for (;;) {
		struct header msg;
		char path[PATH_MAX + 8];
		size_t extra;
		int status = 0;
		ssize_t ret;

		/* a client that closes between messages is done: upstream's
		 * server says nothing then */
		ret = rrecv(stream.fd, &msg, 1, MSG_PEEK);
		if (ret < 0)
			perror("rrecv");
		if (ret <= 0 || rs_recv_all(&stream, &msg, sizeof(msg)))
			break;
		extra = le16toh(msg.length) > HEADER_SIZE ? le16toh(msg.length) - HEADER_SIZE : 0;
		switch (msg.op) {
		case OP_OPEN:
			if (extra < 1 || extra >= sizeof(path) || rs_recv_all(&stream, path, extra))
				goto lost;
			path[extra] = '\0';
			printf("opening: %s, ", path);
			fflush(stdout);
			if (file >= 0)
				close(file);
			file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
				    le32toh(msg.value) & 07777);
			if (file < 0) {
				status = errno;
				perror("open");
			}
			break;
		case OP_WRITE: {
			uint64_t size;

			if (extra != sizeof(size) || rs_recv_all(&stream, &size, sizeof(size)))
				goto lost;
			size = le64toh(size);
			printf("transferring...");
			fflush(stdout);
			if (file < 0) {
				/* nowhere to put it, but the bytes still come */
				status = EBADF;
				goto lost;
			}
			status = receive_body(file, size);
			if (status == EIO)
				goto lost;
			printf("%llu bytes...", (unsigned long long)size);
			break;
		}
		case OP_CLOSE:
			printf("closing...");
			if (file >= 0 && close(file))
				status = errno;
			file = -1;
			break;
		default:
			fprintf(stderr, "unknown message %u\n", msg.op);
			goto lost;
		}
		fflush(stdout);
		if (send_reply(msg.op, status))
			break;
		if (msg.op == OP_CLOSE)
			printf("done\n");
	}
lost:
	if (file >= 0)
		close(file);
	return -1;
}

static int server(const char *port)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int listener, one = 1;

	if (rs_resolve(NULL, port, NULL, 1, 0, SOCK_STREAM, &addr, &len))
		return -1;
	listener = rsocket(addr.ss_family, SOCK_STREAM, 0);
	if (listener < 0) {
		perror("rsocket");
		return -1;
	}
	if (rsetsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    rbind(listener, (struct sockaddr *)&addr, len) || rlisten(listener, 1)) {
		perror("rlisten");
		rclose(listener);
		return -1;
	}
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t peer_len = sizeof(peer);
		char host[NI_MAXHOST];

		printf("waiting for connection...");
		fflush(stdout);
		stream.fd = raccept(listener, (struct sockaddr *)&peer, &peer_len);
		if (stream.fd < 0) {
			perror("raccept");
			break;
		}
		if (getnameinfo((struct sockaddr *)&peer, peer_len, host, sizeof(host), NULL, 0,
				NI_NUMERICHOST))
			snprintf(host, sizeof(host), "(unknown)");
		printf("client: %s\n", host);
		serve_client();
		rclose(stream.fd);
		stream.fd = -1;
	}
	rclose(listener);
	return -1;
}

/* Sends MSG, its length set, and PAYLOAD after it. */
static int request(struct header *msg, const void *payload, size_t payload_len)
{
	msg->length = htole16(HEADER_SIZE + payload_len);
	if (rs_send_all(&stream, msg, sizeof(*msg)) ||
	    (payload_len && rs_send_all(&stream, (void *)payload, payload_len)))
		return -1;
	return 0;
}

static int await_reply(uint8_t op)
{
	struct header reply;

	if (rs_recv_all(&stream, &reply, sizeof(reply)))
		return -1;
	if (reply.op != (op | REPLY_FLAG)) {
		fprintf(stderr, "unexpected reply %u to %u\n", reply.op, op);
		return -1;
	}
	if (reply.value) {
		errno = le32toh(reply.value);
		perror("the server failed");
		return -1;
	}
	return 0;
}

static int client(const char *source, char *target, const char *port)
{
	char *colon = strchr(target, ':');
	const char *dest = colon ? colon + 1 : source;
	struct sockaddr_storage addr;
	socklen_t len;
	struct header open_msg = { .op = OP_OPEN }, write_msg = { .op = OP_WRITE },
		close_msg = { .op = OP_CLOSE };
	struct stat st;
	char *payload;
	size_t name_len, padded;
	void *map = NULL;
	uint64_t size_le;
	long long start, usec;
	int file, err, ret = -1;

	if (colon)
		*colon = '\0';
	file = open(source, O_RDONLY | O_CLOEXEC);
	if (file < 0 || fstat(file, &st)) {
		perror(source);
		return -1;
	}
	if (st.st_size) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, file, 0);
		if (map == MAP_FAILED) {
			perror("mmap");
			close(file);
			return -1;
		}
	}
	err = rs_resolve(target, port, NULL, 0, 0, SOCK_STREAM, &addr, &len);
	if (err)
		goto out;
	stream.fd = rsocket(addr.ss_family, SOCK_STREAM, 0);
	if (stream.fd < 0 || rconnect(stream.fd, (struct sockaddr *)&addr, len)) {
		perror("rconnect");
		goto out;
	}
	start = rs_now_us();
	printf("opening...");
	fflush(stdout);
	name_len = strlen(dest) + 1;
	padded = (name_len + 7) & ~(size_t)7;
	payload = calloc(1, padded);
	if (!payload) {
		perror("malloc");
		goto out;
	}
	memcpy(payload, dest, name_len);
	open_msg.value = htole32(st.st_mode);
	err = request(&open_msg, payload, padded) || await_reply(OP_OPEN);
	free(payload);
	if (err)
		goto out;

	printf("transferring...");
	fflush(stdout);
	size_le = htole64(st.st_size);
	if (request(&write_msg, &size_le, sizeof(size_le)) ||
	    (st.st_size && rs_send_all(&stream, map, st.st_size)) || await_reply(OP_WRITE))
		goto out;

	printf("closing...");
	fflush(stdout);
	if (request(&close_msg, NULL, 0) || await_reply(OP_CLOSE))
		goto out;
	printf("done\n");
	usec = rs_now_us() - start;
	printf("%lld bytes in %.2f seconds = %.2f Gb/sec\n", (long long)st.st_size,
	       usec / 1000000.0, st.st_size * 8.0 / (usec > 0 ? usec : 1) / 1000.0);
	ret = 0;
out:
	if (stream.fd >= 0)
		rclose(stream.fd);
	if (map)
		munmap(map, st.st_size);
	close(file);
	return ret;
}

int main(int argc, char **argv)
{
	const char *port = DEFAULT_PORT;
	char *positional[2];
	int count = 0;

	/* upstream's takes the options after the operands too; '+' keeps
	 * getopt from reordering argv under the loop's feet */
	while (optind < argc) {
		int c = getopt(argc, argv, "+p:");

		if (c == -1) {
			if (count < 2)
				positional[count] = argv[optind];
			count++;
			optind++;
			continue;
		}
		if (c != 'p')
			usage(argv[0]);
		port = optarg;
	}
	if (count == 0)
		return server(port) ? 1 : 0;
	if (count < 2)
		usage(argv[0]);
	/* as upstream's: operands after the second are ignored, a failed
	 * copy exits 255 */
	return client(positional[0], positional[1], port) ? 255 : 0;
}
