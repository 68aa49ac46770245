/* SPDX-License-Identifier: MIT */
/* One 16-byte message each way over the synchronous rdma_verbs.h calls;
 * both return 0 or -1 (having printed why). */
#ifndef OPENVERBS_SYNC_EXCHANGE_H
#define OPENVERBS_SYNC_EXCHANGE_H

/* Waits for one client on ADDR (NULL: any) and PORT. */
int sync_serve(const char *addr, const char *port);

/* Connects to SERVER:PORT and exchanges the messages. */
int sync_ping(const char *server, const char *port);

#endif
