// SPDX-License-Identifier: MIT
/* rdma_xserver: waits for one rdma_xclient and its 16-byte message over
 * an RC or XRC connection made with the synchronous rdma_verbs.h calls;
 * the exchange is in sync_exchange.c. */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "sync_exchange.h"

static void usage(const char *program)
{
	printf("usage: %s\n"
	       "\t[-p port_number]\n"
	       "\t[-c communication type]\n"
	       "\t    r - RC: reliable-connected (default)\n"
	       "\t    x - XRC: extended-reliable-connected\n", program);
}

int main(int argc, char **argv)
{
	const char *port = "7471";
	bool xrc = false;
	int ch, ret;

	/* upstream's ignores arguments after the options: so do we */
	while ((ch = getopt(argc, argv, "p:c:")) != -1) {
		switch (ch) {
		case 'p': port = optarg; break;
		case 'c':
			if (!xsync_connection_type(optarg, &xrc))
				break;
			/* fall through */
		default:
			usage(argv[0]);
			return 1;
		}
	}
	printf("%s: start\n", argv[0]);
	ret = xsync_serve(port, xrc);
	printf("%s: end %d\n", argv[0], ret);
	return ret ? 255 : 0;
}
