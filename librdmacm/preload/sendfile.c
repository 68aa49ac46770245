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

static ssize_t send_file_chunks(int rs, int in_fd, off_t *offset, size_t count)
{
	char buf[CHUNK];
	size_t total = 0;
	ssize_t got, sent;
	int err;

	while (total < count) {
		size_t want = count - total < CHUNK ? count - total : CHUNK;

		got = offset ? pread(in_fd, buf, want, *offset) : real.read(in_fd, buf, want);
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

static ssize_t sendfile_on(ssize_t (*libc_sendfile)(int, int, off_t *, size_t),
			   int out_fd, int in_fd, off_t *offset, size_t count)
{
	struct psock *ps;

	preload_init();
	ps = fdmap_get(out_fd);
	if (!ps)
		return libc_sendfile(out_fd, in_fd, offset, count);
	fork_convert_pending(ps);
	if (ps->kind != PSOCK_RSOCKET)
		return libc_sendfile(ps->sfd, in_fd, offset, count);
	return send_file_chunks(ps->sfd, in_fd, offset, count);
}

PRELOAD_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
	return sendfile_on(real.sendfile, out_fd, in_fd, offset, count);
}

/* off64_t is off_t on the 64-bit ABIs this is built for. */
_Static_assert(sizeof(off64_t) == sizeof(off_t), "sendfile64 needs a 64-bit off_t");

PRELOAD_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
	return sendfile_on(real.sendfile64, out_fd, in_fd, (off_t *)offset, count);
}
