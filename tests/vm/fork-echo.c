// SPDX-License-Identifier: MIT
/*
 * fork-echo PORT COUNT: a plain TCP server that knows nothing of RDMA.  It
 * accepts COUNT connections, forks a child for each that echoes what it
 * reads until EOF (blocking reads first, as a forking server does), and
 * exits 0 when every child did.  The preload test runs it with
 * RDMAV_FORK_SAFE=1 under librspreload (fork mode).
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

static int echo(int fd)
{
	char buf[65536];
	ssize_t got, sent, off;

	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < got; off += sent) {
			sent = write(fd, buf + off, got - off);
			if (sent <= 0) {
				perror("fork-echo: write");
				return 1;
			}
		}
	}
	if (got < 0) {
		perror("fork-echo: read");
		return 1;
	}
	return close(fd) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	int listener, conn, i, count, status, failed = 0, one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: fork-echo PORT COUNT\n");
		return 2;
	}
	addr.sin_port = htons(atoi(argv[1]));
	count = atoi(argv[2]);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(listener, (struct sockaddr *)&addr, sizeof(addr)) || listen(listener, 8)) {
		perror("fork-echo: listen");
		return 1;
	}
	printf("fork-echo: listening on port %s\n", argv[1]);
	fflush(stdout);
	for (i = 0; i < count; i++) {
		conn = accept(listener, NULL, NULL);
		if (conn < 0) {
			perror("fork-echo: accept");
			return 1;
		}
		switch (fork()) {
		case -1:
			perror("fork-echo: fork");
			return 1;
		case 0:
			close(listener);
			_exit(echo(conn));
		default:
			close(conn);
		}
	}
	for (i = 0; i < count; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	printf("fork-echo: %d connections, %s\n", count, failed ? "a child failed" : "all echoed");
	return failed;
}
