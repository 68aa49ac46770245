// SPDX-License-Identifier: MIT
/* rdma_server: the synchronous rdma_verbs.h calls (rdma_create_ep,
 * rdma_get_request, rdma_post_recv/send) on one connection: it waits for
 * the client's 16-byte message and answers with 16 bytes of its own. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		switch (ch) {
		case 's': addr = optarg; break;
		case 'p': port = optarg; break;
		default:
			printf("usage: %s\n\t[-s server_address]\n\t[-p port_number]\n", argv[0]);
			return 1;
		}
	}
	printf("rdma_server: start\n");
	ret = sync_serve(addr, port);
	printf("rdma_server: end %d\n", ret);
	return ret ? 255 : 0;
}
