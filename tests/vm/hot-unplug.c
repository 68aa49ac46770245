// SPDX-License-Identifier: MIT
/*
 * rxe0 is removed (`rdma link delete`) while a context with a PD, MR,
 * CQ and two connected QPs is open, then added again.
 *
 * What the kernel does decides what can be seen.  rxe (like siw) cannot
 * disassociate a context from its device, so on removal the kernel
 * takes the device out of sight at once (no uverbs node, not listed)
 * and then waits until every context is closed; nothing is reported on
 * the async fd and the open context keeps working.  IBV_EVENT_DEVICE_FATAL,
 * verbs failing with EIO and RDMAV_ALLOW_DISASSOC_DESTROY need a driver
 * that disassociates (mlx5, mlx4, hns, efa, ...): none exists here, so
 * this test checks the behaviour that rxe allows, on both libraries:
 *  - the device leaves new device lists while the removal waits;
 *  - the open context, its objects and the data path keep working;
 *  - opening the removed device through an old list fails cleanly;
 *  - closing the context lets the removal finish;
 *  - after `rdma link add` the new rxe0 is listed, opens and moves data.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

enum { BUF = 4096 };

static const char *devname;

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

/* Whether a fresh device list has name. */
static bool listed(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	bool found = find(list, name) != NULL;

	if (list)
		ibv_free_device_list(list);
	return found;
}

/* Waits up to ms for listed(name) == want. */
static bool wait_listed(const char *name, bool want, int ms)
{
	for (int t = 0; t < ms; t += 50) {
		if (listed(name) == want)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/* An RDMA write of 64 bytes from a to b's half of buf, checked. */
static bool rdma_write(struct ibv_qp *a, struct ibv_cq *cq, struct ibv_mr *mr, char tag)
{
	char *buf = mr->addr;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)buf + BUF / 2, .rkey = mr->rkey },
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	memset(buf, tag, 64);
	memset(buf + BUF / 2, 0, 64);
	if (ibv_post_send(a, &wr, &bad)) {
		printf("   post_send: %s\n", strerror(errno));
		return false;
	}
	if (vt_poll_one(cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
		printf("   no successful completion\n");
		return false;
	}
	return buf[BUF / 2] == tag && buf[BUF / 2 + 63] == tag;
}

struct setup {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
};

static bool set_up(struct setup *s, struct ibv_device *dev, char *buf)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ibv_open_device(dev);
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->mr = s->pd ? ibv_reg_mr(s->pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE) : NULL;
	s->cq = s->mr ? ibv_create_cq(s->ctx, 16, NULL, NULL, 0) : NULL;
	s->a = s->cq ? vt_create_rc_qp(s->pd, s->cq) : NULL;
	s->b = s->a ? vt_create_rc_qp(s->pd, s->cq) : NULL;
	if (s->b && !vt_connect_rc(s->a, s->b))
		return true;
	printf("   set-up failed: %s\n", strerror(errno));
	return false;
}

static void tear_down(struct setup *s)
{
	EXPECT_RET(0, ibv_destroy_qp(s->a));
	EXPECT_RET(0, ibv_destroy_qp(s->b));
	EXPECT_RET(0, ibv_destroy_cq(s->cq));
	EXPECT_RET(0, ibv_dereg_mr(s->mr));
	EXPECT_RET(0, ibv_dealloc_pd(s->pd));
	EXPECT_RET(0, ibv_close_device(s->ctx));
}

int main(void)
{
	struct ibv_device **old_list, *old_dev, **new_list, *new_dev;
	struct ibv_port_attr port;
	struct setup s;
	char *buf;
	pid_t pid;
	int st;

	devname = getenv("RDMAVM_RXE_DEV") ? getenv("RDMAVM_RXE_DEV") : "rxe0";
	vt_init("hot-unplug");
	if (!MUST(buf = aligned_alloc(BUF, BUF)))
		return vt_finish();
	if (!MUST(old_list = ibv_get_device_list(NULL)))
		return vt_finish();
	if (!MUST(old_dev = find(old_list, devname)))
		return vt_finish();
	if (!MUST(set_up(&s, old_dev, buf)))
		return vt_finish();
	CHECK(rdma_write(s.a, s.cq, s.mr, 'a'), "RDMA write before the removal");

	printf("-- rdma link delete %s, with the context open\n", devname);
	pid = vt_start_link_delete(devname);
	if (!MUST(pid >= 0))
		return vt_finish();
	CHECK(wait_listed(devname, false, 10000), "%s still listed 10 s after removal began",
	      devname);
	CHECK(vt_wait_child(pid, 1000) == -1, "rdma link delete finished with a context open: "
	      "this kernel disassociates, test DEVICE_FATAL here");
	{
		char node[96];

		snprintf(node, sizeof(node), "/dev/infiniband/%s", old_dev->dev_name);
		CHECK(access(node, F_OK) != 0, "%s is still there", node);
	}
	{
		struct pollfd p = { .fd = s.ctx->async_fd, .events = POLLIN };

		CHECK(poll(&p, 1, 500) == 0, "an async event arrived (the kernel disassociated?)");
	}

	printf("-- the open context keeps working while the removal waits\n");
	EXPECT_RET(0, ibv_query_port(s.ctx, 1, &port));
	EXPECT_NULL(0, ibv_alloc_pd(s.ctx), ibv_dealloc_pd);
	CHECK(rdma_write(s.a, s.cq, s.mr, 'b'), "RDMA write during the removal");

	printf("-- the removed device, through the old list\n");
	CHECK(!strcmp(ibv_get_device_name(old_dev), devname), "old handle's name: %s",
	      ibv_get_device_name(old_dev));
	EXPECT_NULL(ENOENT, ibv_open_device(old_dev), ibv_close_device);

	printf("-- closing the context lets the removal finish\n");
	tear_down(&s);
	st = vt_wait_child(pid, 10000);
	CHECK(st == 0, "rdma link delete: %s %d", st < 0 ? "still running" : "exit", st);
	if (st < 0) {
		kill(pid, SIGKILL);
		return vt_finish();
	}
	CHECK(!listed(devname), "%s listed after its removal", devname);

	printf("-- rdma link add %s again\n", devname);
	CHECK(vt_sh("rdma link add %s type rxe netdev %s", devname,
		    getenv("RDMAVM_RXE_NETDEV") ? getenv("RDMAVM_RXE_NETDEV") : "rxenet") == 0,
	      "rdma link add failed");
	CHECK(wait_listed(devname, true, 10000), "the new %s is not listed", devname);
	if (!MUST(new_list = ibv_get_device_list(NULL)))
		return vt_finish();
	if (!MUST(new_dev = find(new_list, devname)))
		return vt_finish();
	printf("   new %s on %s, old one was on %s\n", devname, new_dev->dev_name,
	       old_dev->dev_name);
	/* the RoCE GIDs come asynchronously, after the netdev events */
	{
		struct ibv_context *c = ibv_open_device(new_dev);
		union ibv_gid gid = { 0 };

		for (int t = 0; c && t < 100 && !gid.global.interface_id; t++) {
			if (ibv_query_gid(c, 1, vt_gid_index(), &gid))
				break;
			if (!gid.global.interface_id)
				usleep(50 * 1000);
		}
		CHECK(gid.global.interface_id != 0, "the new device has no GID %d",
		      vt_gid_index());
		if (c)
			ibv_close_device(c);
	}
	if (set_up(&s, new_dev, buf)) {
		CHECK(rdma_write(s.a, s.cq, s.mr, 'c'), "RDMA write on the new device");
		tear_down(&s);
	} else {
		vt_fail("cannot use the new %s", devname);
	}
	ibv_free_device_list(new_list);
	ibv_free_device_list(old_list);
	free(buf);
	return vt_finish();
}
