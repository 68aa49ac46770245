/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "fake_ucm.h"
#include "ucma.h"

struct fake_ucm fake_ucm;

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	struct fake_ucm_call *c;
	int err;

	ck_assert_int_lt(fake_ucm.ncalls, FAKE_UCM_MAX_CALLS);
	c = &fake_ucm.calls[fake_ucm.ncalls++];
	ck_assert_uint_ge(len, sizeof(c->hdr));
	ck_assert_uint_le(len, sizeof(c->hdr) + sizeof(c->body));
	c->fd = fd;
	c->len = len;
	memcpy(&c->hdr, buf, sizeof(c->hdr));
	memcpy(c->body, (const uint8_t *)buf + sizeof(c->hdr), len - sizeof(c->hdr));
	/* What the kernel checks first: the header says how long the request is. */
	ck_assert_uint_eq(c->hdr.in + sizeof(c->hdr), len);
	err = fake_ucm.answer ? fake_ucm.answer(c->hdr.cmd, (uint8_t *)buf + sizeof(c->hdr)) : 0;
	if (err) {
		errno = err;
		return -1;
	}
	return fake_ucm.short_write ? fake_ucm.short_write : (ssize_t)len;
}

void fake_ucm_start(int (*answer)(uint32_t cmd, void *body))
{
	memset(&fake_ucm, 0, sizeof(fake_ucm));
	fake_ucm.answer = answer;
	ucma_sys.write = fake_write;
}

void *fake_ucm_response(const void *body)
{
	uint64_t response;

	memcpy(&response, body, sizeof(response));
	return (void *)(uintptr_t)response;
}

int fake_ucm_count(uint32_t cmd)
{
	int n = 0;

	for (int i = 0; i < fake_ucm.ncalls; i++)
		n += fake_ucm.calls[i].hdr.cmd == cmd;
	return n;
}

struct rdma_ucm_event_resp *fake_ucm_queue_event(uint64_t uid, uint32_t handle,
						 enum rdma_cm_event_type type)
{
	struct rdma_ucm_event_resp *e;

	ck_assert_int_lt(fake_ucm.nevents, FAKE_UCM_MAX_EVENTS);
	e = &fake_ucm.events[fake_ucm.nevents++];
	*e = (struct rdma_ucm_event_resp){ .uid = uid, .id = handle, .event = type };
	return e;
}

int fake_ucm_kernel(uint32_t cmd, void *body)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		((struct rdma_ucm_create_id_resp *)fake_ucm_response(body))->id = ++fake_ucm.handles;
		return 0;
	case RDMA_USER_CM_CMD_DESTROY_ID:
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
	case RDMA_USER_CM_CMD_MIGRATE_ID:
		((struct rdma_ucm_destroy_id_resp *)fake_ucm_response(body))->events_reported =
			fake_ucm.events_reported;
		return 0;
	case RDMA_USER_CM_CMD_GET_EVENT:
		if (!fake_ucm.nevents)
			return EAGAIN;
		memcpy(fake_ucm_response(body), &fake_ucm.events[0], sizeof(fake_ucm.events[0]));
		memmove(fake_ucm.events, fake_ucm.events + 1,
			--fake_ucm.nevents * sizeof(fake_ucm.events[0]));
		return 0;
	case RDMA_USER_CM_CMD_QUERY:
		return fake_ucm.query_error;
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		fake_ucm.join_uid = ((struct rdma_ucm_join_mcast *)body)->uid;
		((struct rdma_ucm_create_id_resp *)fake_ucm_response(body))->id = 40;
		return 0;
	default:
		return 0;
	}
}
