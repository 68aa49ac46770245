/* SPDX-License-Identifier: MIT */
/*
 * The fake rdma_cm kernel every librdmacm unit program shares, behind
 * ucma_sys: it records each command as the kernel reads it and answers
 * through the command's response pointer.  A test either answers itself
 * (fake_ucm.answer) or leaves it to fake_ucm_kernel, which knows ids,
 * joins and a queue of events, enough for the library's own calls.
 */
#ifndef OPENVERBS_TESTS_FAKE_UCM_H
#define OPENVERBS_TESTS_FAKE_UCM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_cm.h"

enum { FAKE_UCM_MAX_CALLS = 32, FAKE_UCM_MAX_EVENTS = 4 };

/* One command as the kernel read it. */
struct fake_ucm_call {
	int fd;
	size_t len;
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[1024];
};

struct fake_ucm {
	struct fake_ucm_call calls[FAKE_UCM_MAX_CALLS];
	int ncalls;
	/* What the kernel does with a command: 0 or the errno it fails
	 * with; body is the request, in the caller's memory. */
	int (*answer)(uint32_t cmd, void *body);
	/* Set: write() reports this many bytes instead of all. */
	ssize_t short_write;

	/* fake_ucm_kernel's state. */
	struct rdma_ucm_event_resp events[FAKE_UCM_MAX_EVENTS];
	int nevents;			/* GET_EVENT says EAGAIN at 0 */
	uint32_t handles;		/* the last id CREATE_ID gave */
	uint32_t events_reported;	/* DESTROY_ID, LEAVE_MCAST, MIGRATE_ID say so */
	int query_error;		/* QUERY fails with it */
	uint64_t join_uid;		/* the last JOIN_MCAST's */
};
extern struct fake_ucm fake_ucm;

/* A fresh fake behind ucma_sys, answering with answer (NULL: every
 * command succeeds, with nothing written back). */
void fake_ucm_start(int (*answer)(uint32_t cmd, void *body));

/* A kernel that knows ids, joins and events, for the library's calls. */
int fake_ucm_kernel(uint32_t cmd, void *body);
/* Queues an event GET_EVENT hands out after those queued before: the
 * test fills in the rest. */
struct rdma_ucm_event_resp *fake_ucm_queue_event(uint64_t uid, uint32_t handle,
						 enum rdma_cm_event_type type);

/* Where most requests start: the response pointer. */
void *fake_ucm_response(const void *body);
/* How many of the recorded commands were cmd. */
int fake_ucm_count(uint32_t cmd);

/* The request of recorded command i as the kernel's structure. */
#define UCM_REQ(i, type) ((type *)fake_ucm.calls[i].body)

#endif
