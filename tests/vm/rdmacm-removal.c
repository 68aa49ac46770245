// SPDX-License-Identifier: MIT
/*
 * rxe0 is removed (`rdma link delete`) while rdma_cm ids live on it: a
 * listener, and a client with a QP resolved up to its route; an id on
 * siw0 looks on.  Run on upstream's librdmacm first, then ours
 * (on-both.sh).
 *  - each rxe id gets RDMA_CM_EVENT_DEVICE_REMOVAL, the siw id nothing;
 *  - destroying the QP and the ids still works, and siw0 keeps working;
 *  - once the process is gone, the removal finishes (rxe cannot
 *    disassociate: the kernel waits for every context; upstream's
 *    library keeps the device's open until the process ends, so the
 *    ids live in a child);
 *  - after `rdma link add`, a new id finds the new rxe0 and gets a QP.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmtest.h"

enum { EVENT_MS = 10000 };

static struct ibv_qp_init_attr rc_attr(void)
{
	return (struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

static bool step(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = vt_cm_event(ch, want, EVENT_MS);

	if (ev)
		rdma_ack_cm_event(ev);
	return ev != NULL;
}

/* An id on ch resolved up to its route towards sin, with a QP. */
static bool client(struct rdma_event_channel *ch, struct rdma_cm_id **id,
		   struct sockaddr_in *sin)
{
	struct ibv_qp_init_attr init = rc_attr();

	return MUST(!rdma_create_id(ch, id, NULL, RDMA_PS_TCP)) &&
	       MUST(!rdma_resolve_addr(*id, NULL, (struct sockaddr *)sin, 2000)) &&
	       MUST(step(ch, RDMA_CM_EVENT_ADDR_RESOLVED)) &&
	       MUST(!rdma_resolve_route(*id, 2000)) &&
	       MUST(step(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) &&
	       MUST(!rdma_create_qp(*id, NULL, &init));
}

/* The next removal event on ch: for which of a and b it came. */
static struct rdma_cm_id *removal(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev = vt_cm_event(ch, RDMA_CM_EVENT_DEVICE_REMOVAL, EVENT_MS);
	struct rdma_cm_id *id;

	if (!ev)
		return NULL;
	id = ev->id;
	rdma_ack_cm_event(ev);
	return id;
}

/* The child: ids on both devices, the removal's events, teardown.
 * Writes a byte to ready once the ids exist; its exit status is
 * vt_finish()'s. */
static int with_ids(int ready)
{
	struct sockaddr_in rxe = vt_cm_addr("RDMAVM_RXE_IP", 7490);
	struct sockaddr_in siw = vt_cm_addr("RDMAVM_SIW_IP", 7491);
	struct rdma_event_channel *ch, *siw_ch;
	struct rdma_cm_id *listen = NULL, *conn = NULL, *siw_id = NULL, *first, *second;

	if (!MUST(ch = rdma_create_event_channel()) || !MUST(siw_ch = rdma_create_event_channel()))
		return vt_finish();
	if (!MUST(!rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_bind_addr(listen, (struct sockaddr *)&rxe)) ||
	    !MUST(!rdma_listen(listen, 1)) || !client(ch, &conn, &rxe) ||
	    !MUST(!rdma_create_id(siw_ch, &siw_id, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_bind_addr(siw_id, (struct sockaddr *)&siw)))
		return vt_finish();
	if (!MUST(write(ready, "r", 1) == 1))
		return vt_finish();
	first = removal(ch);
	second = first ? removal(ch) : NULL;
	CHECK(first && second && first != second &&
	      (first == listen || first == conn) && (second == listen || second == conn),
	      "one DEVICE_REMOVAL for each of the two ids");
	CHECK(!vt_cm_pending(siw_ch, 200), "nothing for the id on siw0");

	printf("-- tearing down\n");
	rdma_destroy_qp(conn);
	EXPECT_ERRNO(0, rdma_destroy_id(conn));
	EXPECT_ERRNO(0, rdma_destroy_id(listen));
	rdma_destroy_event_channel(ch);
	printf("-- siw0 is untouched\n");
	EXPECT_ERRNO(0, rdma_listen(siw_id, 1));
	EXPECT_ERRNO(0, rdma_destroy_id(siw_id));
	rdma_destroy_event_channel(siw_ch);
	return vt_finish();
}

int main(void)
{
	const char *dev = getenv("RDMAVM_RXE_DEV"), *netdev = getenv("RDMAVM_RXE_NETDEV");
	struct sockaddr_in rxe = vt_cm_addr("RDMAVM_RXE_IP", 7492);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *again = NULL;
	pid_t child, remover;
	int ready[2], st;
	char byte;

	vt_cm_init("rdmacm-removal");
	if (!MUST(dev && netdev) || !MUST(!pipe(ready)))
		return vt_finish();
	fflush(stdout);
	child = fork();
	if (!MUST(child >= 0))
		return vt_finish();
	if (!child)
		_exit(with_ids(ready[1]));
	close(ready[1]);
	if (!MUST(read(ready[0], &byte, 1) == 1)) {
		waitpid(child, NULL, 0);
		return vt_finish();
	}

	printf("-- rdma link delete %s with two ids on it\n", dev);
	remover = vt_start_link_delete(dev);
	if (!MUST(remover >= 0))
		return vt_finish();
	st = vt_wait_child(child, 30000);
	CHECK(st == 0, "the process with the ids: %s %d", st < 0 ? "still running" : "exit", st);
	if (st < 0)
		kill(child, SIGKILL), waitpid(child, NULL, 0);
	st = vt_wait_child(remover, 15000);
	CHECK(st == 0, "rdma link delete, once the process is gone: %s %d",
	      st < 0 ? "still running" : "exit", st);
	if (st < 0)
		return vt_finish();

	printf("-- rdma link add %s again\n", dev);
	CHECK(vt_sh("rdma link add %s type rxe netdev %s", dev, netdev) == 0, "rdma link add failed");
	/* the RoCE GID comes asynchronously, after the netdev events */
	CHECK(vt_sh("for i in $(seq 100); do grep -qv '^0000:0000:0000:0000:0000:0000:0000:0000$' "
		    "/sys/class/infiniband/%s/ports/1/gids/%d && exit 0; sleep 0.1; done; exit 1",
		    dev, vt_gid_index()) == 0, "the new %s has no GID %d", dev, vt_gid_index());
	if (MUST(ch = rdma_create_event_channel())) {
		client(ch, &again, &rxe);
		CHECK(again && again->qp && again->verbs &&
		      !strcmp(ibv_get_device_name(again->verbs->device), dev),
		      "a new id finds the new %s and gets a QP there", dev);
		if (again) {
			rdma_destroy_qp(again);
			rdma_destroy_id(again);
		}
		rdma_destroy_event_channel(ch);
	}
	return vt_finish();
}
