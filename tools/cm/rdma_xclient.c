// SPDX-License-Identifier: MIT
/* rdma_xclient: rdma_xserver's peer; connects over RC or XRC with the
 * synchronous rdma_verbs.h calls and sends one 16-byte message; the
 * program is in sync_exchange.c, which rdma_xserver shares. */
#include <stdbool.h>

#include "sync_exchange.h"

int main(int argc, char **argv)
{
	return xsync_main(argc, argv, true);
}
