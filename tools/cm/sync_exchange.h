/* SPDX-License-Identifier: MIT */
/* The message exchanges of rdma_server/rdma_client and
 * rdma_xserver/rdma_xclient over the synchronous rdma_verbs.h calls;
 * sync_serve and sync_ping return 0 or -1 (having printed why). */
#ifndef OPENVERBS_SYNC_EXCHANGE_H
#define OPENVERBS_SYNC_EXCHANGE_H

#include <stdbool.h>

/* Waits for one client on ADDR (NULL: any) and PORT. */
int sync_serve(const char *addr, const char *port);

/* Connects to SERVER:PORT and exchanges the messages. */
int sync_ping(const char *server, const char *port);

/* The whole of rdma_xclient (CLIENT) or rdma_xserver: options, then
 * one 16-byte message from client to server, over RC or XRC (-c); the
 * exit status. */
int xsync_main(int argc, char **argv, bool client);

#endif
