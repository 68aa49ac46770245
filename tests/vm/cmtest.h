/* SPDX-License-Identifier: MIT */
/*
 * What the vm suite's librdmacm tests share, on top of vmtest.h: which
 * librdmacm runs, the device addresses, events with a deadline, and
 * calls that may crash run in a child.  Public API only, so the same
 * binary runs on upstream's librdmacm (on-both.sh).
 */
#ifndef CMTEST_H
#define CMTEST_H

#include <netinet/in.h>
#include <rdma/rdma_cma.h>

#include "vmtest.h"

/* The librdmacm we run on is upstream's (its path: vt_librdmacm). */
extern bool vt_cm_upstream;
extern char vt_librdmacm[];

/* vt_init, then prints which librdmacm was loaded. */
void vt_cm_init(const char *name);

/* $RDMAVM_RXE_IP or $RDMAVM_SIW_IP (env names it) with port. */
struct sockaddr_in vt_cm_addr(const char *env, uint16_t port);

/* The next event on ch within ms: NULL (with a failure recorded) if
 * none came, or if it is not of type want (then acked). */
struct rdma_cm_event *vt_cm_event(struct rdma_event_channel *ch,
				  enum rdma_cm_event_type want, int ms);
/* Whether an event is waiting on ch within ms (it stays there). */
bool vt_cm_pending(struct rdma_event_channel *ch, int ms);

/* Runs fn(arg) in a child: its exit status, or 128 + the signal that
 * ended it (a crash). */
int vt_in_child(int (*fn)(void *), void *arg);

#endif
