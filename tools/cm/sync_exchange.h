/* SPDX-License-Identifier: MIT */
/* The message exchanges of rdma_server/rdma_client and
 * rdma_xserver/rdma_xclient over the synchronous rdma_verbs.h calls; all
 * return 0 or -1 (having printed why). */
#ifndef OPENVERBS_SYNC_EXCHANGE_H
#define OPENVERBS_SYNC_EXCHANGE_H

#include <stdbool.h>

/* Waits for one client on ADDR (NULL: any) and PORT. */
int sync_serve(const char *addr, const char *port);

/* Connects to SERVER:PORT and exchanges the messages. */
int sync_ping(const char *server, const char *port);

/* -c ARG of rdma_xserver/rdma_xclient: r (RC) or x (XRC) into XRC. */
int xsync_connection_type(const char *arg, bool *xrc);

/* rdma_xserver: waits on PORT for one client and its 16-byte message,
 * over RC, or XRC if XRC. */
int xsync_serve(const char *port, bool xrc);

/* rdma_xclient: connects to SERVER:PORT and sends 16 bytes. */
int xsync_send(const char *server, const char *port, bool xrc);

#endif
