// SPDX-License-Identifier: MIT
/* rdma_xserver: waits for one rdma_xclient and its 16-byte message over
 * an RC or XRC connection made with the synchronous rdma_verbs.h calls;
 * the program is in sync_exchange.c, which rdma_xclient shares. */
#include <stdbool.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	return xsync_main(argc, argv, false);
}
