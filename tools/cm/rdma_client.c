// SPDX-License-Identifier: MIT
/* rdma_client: rdma_server's peer, through the synchronous rdma_verbs.h
 * calls: it sends 16 bytes and waits for the server's 16. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	const char *server = "127.0.0.1", *port = "7471";
	int ch, ret;

	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		switch (ch) {
		case 's': server = optarg; break;
		case 'p': port = optarg; break;
		default:
			printf("usage: %s\n\t[-s server_address]\n\t[-p port_number]\n", argv[0]);
			return 1;
		}
	}
	printf("rdma_client: start\n");
	ret = sync_ping(server, port);
	printf("rdma_client: end %d\n", ret);
	return ret ? 255 : 0;
}
