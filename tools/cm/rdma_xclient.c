// SPDX-License-Identifier: MIT
/* rdma_xclient: rdma_xserver's peer in upstream's RC mode (-c r): sends
 * 16 bytes and waits for the server's 16 through the synchronous
 * rdma_verbs.h calls.  The XRC mode (-c x) is not implemented: refused
 * with a message. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	const char *server = "127.0.0.1", *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "s:p:c:")) != -1) {
		switch (ch) {
		case 's': server = optarg; break;
		case 'p': port = optarg; break;
		case 'c':
			if (!strcmp(optarg, "r"))
				break;
			if (!strcmp(optarg, "x")) {
				fprintf(stderr, "%s: XRC (-c x) is not supported by this rdma_xclient\n", argv[0]);
				return 1;
			}
			/* fall through */
		default:
			printf("usage: %s\n\t[-s server]\n\t[-p port_number]\n\t[-c communication type]\n"
			       "\t    r - RC: reliable-connected (default)\n"
			       "\t    x - XRC: extended-reliable-connected\n", argv[0]);
			return 1;
		}
	}
	printf("%s: start\n", argv[0]);
	ret = sync_ping(server, port);
	printf("%s: end %d\n", argv[0], ret);
	return ret ? 255 : 0;
}
