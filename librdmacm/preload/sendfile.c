// SPDX-License-Identifier: MIT
/*
 * sendfile() to an rsocket: the file is read in chunks and rwrite()n.
 * Upstream maps the file without MAP_SHARED/MAP_PRIVATE, which Linux
 * refuses, so there it always fails (PRELOAD.md 4.10).  Semantics as
 * sendfile(2): with OFFSET the file position stays and *OFFSET advances by
 * what was sent; without it the file position advances by that much.
 * Built without _FILE_OFFSET_BITS=64, which would rename sendfile to
 * sendfile64 (both are defined here).
 */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <unistd.h>
#include <sys/sendfile.h>
#include <rdma/rsocket.h>

#include "preload.h"

#define CHUNK 16384

/* Puts back what was read but not sent (file position mode). */
static void unread(int in_fd, ssize_t unsent)
{
	if (unsent > 0)
		lseek(in_fd, -unsent, SEEK_CUR);
}

/* off64_t: the position of either entry point, whatever off_t's width. */
static ssize_t send_file_chunks(int rs, int in_fd, off64_t *offset, size_t count)
{
	char buf[CHUNK];
	size_t total = 0;
	ssize_t got, sent;
	int err;

	while (total < count) {
		size_t want = count - total < CHUNK ? count - total : CHUNK;

		got = offset ? pread64(in_fd, buf, want, *offset) : real.read(in_fd, buf, want);
		if (got <= 0) {
			if (got < 0 && !total)
				return -1;
			break;
		}
		sent = rwrite(rs, buf, got);
		if (sent < 0) {
			err = errno;
			if (!offset)
				unread(in_fd, got);
			if (total)
				break;
			errno = err;
			return -1;
		}
		if (offset)
			*offset += sent;
		else
			unread(in_fd, got - sent);
		total += sent;
		if (sent < got)
			break;
	}
	return total;
}

/* The rsocket behind OUT_FD, or -1 with *libc_fd the descriptor that libc's
 * sendfile is to be called on. */
static int rsocket_of(int out_fd, int *libc_fd)
{
	struct psock *ps;

	preload_init();
	*libc_fd = out_fd;
	ps = fdmap_get(out_fd);
	if (!ps)
		return -1;
	fork_convert_pending(ps);
	*libc_fd = ps->sfd;
	return ps->kind == PSOCK_RSOCKET ? ps->sfd : -1;
}

PRELOAD_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
	int fd, rs = rsocket_of(out_fd, &fd);
	off64_t pos;
	ssize_t sent;

	if (rs < 0)
		return real.sendfile(fd, in_fd, offset, count);
	if (!offset)
		return send_file_chunks(rs, in_fd, NULL, count);
	pos = *offset;
	sent = send_file_chunks(rs, in_fd, &pos, count);
	*offset = pos;
	return sent;
}

/* Where off_t is 32 bits wide (i686), the large-file twin is a function of
 * its own. */
PRELOAD_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
	int fd, rs = rsocket_of(out_fd, &fd);

	if (rs < 0)
		return real.sendfile64(fd, in_fd, offset, count);
	return send_file_chunks(rs, in_fd, offset, count);
}
