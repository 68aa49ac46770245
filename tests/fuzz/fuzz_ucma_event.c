/* SPDX-License-Identifier: MIT */
/*
 * librdmacm's event records: the input is what the rdma_cm kernel
 * answers, behind tests/unit's fake (fake_ucm.c).  GET_EVENT hands out
 * one record from it, and every query the library then makes to complete
 * the event (a connection request's addresses, route and paths) is
 * answered from it too.  The record's uid is kept pointing at the id it
 * names: the kernel echoes the user's pointer, which upstream trusts as
 * much as we do; multicast events (whose uid is a join) are left out.
 */
#include <errno.h>

#include "fake_ucm.h"
#include "fuzz.h"
#include "internal.h"

static struct fuzz_input in;
static struct rdma_event_channel channel = { .fd = 3 };
static uint64_t main_uid;
static uint32_t main_handle, delivered;
static bool events_given;

static int fuzz_kernel(uint32_t cmd, void *body)
{
	const struct fake_ucm_call *c = &fake_ucm.calls[fake_ucm.ncalls - 1];

	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		return fake_ucm_kernel(cmd, body);
	case RDMA_USER_CM_CMD_DESTROY_ID:
		fake_ucm.events_reported = ((struct rdma_ucm_destroy_id *)body)->id == main_handle ?
					   delivered : 0;
		return fake_ucm_kernel(cmd, body);
	case RDMA_USER_CM_CMD_GET_EVENT: {
		struct rdma_ucm_event_resp *e = fake_ucm_response(body);

		if (events_given)
			return EAGAIN;
		events_given = true;
		fuzz_take(&in, e, sizeof(*e));
		e->uid = main_uid;
		/* A connection request's new id is the kernel's next, never
		 * the listener's own. */
		if (e->id == main_handle)
			e->id = main_handle + 1;
		if (e->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
		    e->event == RDMA_CM_EVENT_MULTICAST_ERROR)
			e->event = RDMA_CM_EVENT_ADDR_CHANGE;
		delivered++;
		return 0;
	}
	default:
		/* Anything else: the input says whether it fails, and what
		 * the response (if the command has one) holds. */
		if (fuzz_u8(&in) >= 0xf0)
			return EINVAL;
		if (c->hdr.out)
			fuzz_take(&in, fake_ucm_response(body), c->hdr.out);
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id, *new_id;

	in = (struct fuzz_input){ data, size };
	fake_ucm_start(fuzz_kernel);
	delivered = 0;
	events_given = false;
	if (rdma_create_id(&channel, &id, NULL, fuzz_u8(&in) & 1 ? RDMA_PS_UDP : RDMA_PS_TCP))
		return 0;
	main_uid = (uintptr_t)container_of(id, struct cma_id, id);
	main_handle = fake_ucm.handles;
	if (!rdma_get_cm_event(&channel, &ev)) {
		new_id = ev->listen_id ? ev->id : NULL;
		rdma_ack_cm_event(ev);
		if (new_id)
			rdma_destroy_id(new_id);
	}
	rdma_destroy_id(id);
	return 0;
}
