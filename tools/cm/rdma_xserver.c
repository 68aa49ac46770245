// SPDX-License-Identifier: MIT
/* rdma_xserver: rdma_server's exchange (one 16-byte message each way over
 * the synchronous rdma_verbs.h calls) on any local address, as upstream's
 * rdma_xserver does in its RC mode (-c r).  Its XRC mode (-c x) is not
 * implemented: refused with a message. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	const char *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "p:c:")) != -1) {
		switch (ch) {
		case 'p': port = optarg; break;
		case 'c':
			if (!strcmp(optarg, "r"))
				break;
			if (!strcmp(optarg, "x")) {
				fprintf(stderr, "%s: XRC (-c x) is not supported by this rdma_xserver\n", argv[0]);
				return 1;
			}
			/* fall through */
		default:
			printf("usage: %s\n\t[-p port_number]\n\t[-c communication type]\n"
			       "\t    r - RC: reliable-connected (default)\n"
			       "\t    x - XRC: extended-reliable-connected\n", argv[0]);
			return 1;
		}
	}
	printf("%s: start\n", argv[0]);
	ret = sync_serve(NULL, port);
	printf("%s: end %d\n", argv[0], ret);
	return ret ? 255 : 0;
}
