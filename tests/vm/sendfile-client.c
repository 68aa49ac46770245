// SPDX-License-Identifier: MIT
/*
 * sendfile-client IP PORT FILE: a plain TCP client that knows nothing of
 * RDMA and sends FILE with sendfile(2): the first half with an offset
 * pointer, the rest from the file position.  It then keeps the connection
 * until its stdin ends (so the test can look at it) and closes.  Under
 * librspreload, sendfile to an rsocket must work (upstream's fails).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>

static int send_range(int sock, int file, off_t *offset, off_t count)
{
	ssize_t sent;

	while (count > 0) {
		sent = sendfile(sock, file, offset, count);
		if (sent <= 0) {
			perror("sendfile-client: sendfile");
			return -1;
		}
		count -= sent;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	struct stat st;
	off_t offset = 0, half;
	char buf[256];
	int sock, file;

	if (argc != 4) {
		fprintf(stderr, "usage: sendfile-client IP PORT FILE\n");
		return 2;
	}
	addr.sin_port = htons(atoi(argv[2]));
	file = open(argv[3], O_RDONLY);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (file < 0 || fstat(file, &st) || sock < 0 || inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1 ||
	    connect(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("sendfile-client: setup");
		return 1;
	}
	half = st.st_size / 2;
	if (send_range(sock, file, &offset, half) || offset != half ||
	    lseek(file, half, SEEK_SET) != half ||
	    send_range(sock, file, NULL, st.st_size - half) ||
	    lseek(file, 0, SEEK_CUR) != st.st_size) {
		fprintf(stderr, "sendfile-client: offsets wrong (offset %lld)\n", (long long)offset);
		return 1;
	}
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	printf("sendfile-client: sent %lld bytes\n", (long long)st.st_size);
	return close(sock) ? 1 : 0;
}
