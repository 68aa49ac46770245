// SPDX-License-Identifier: MIT
/*
 * Nothing is left behind, on failure or success (rxe0): loops of failing
 * creations, then loops of create/destroy of every object kind and of
 * device lists and contexts, leave the process's open fds and mappings
 * (/proc/self/maps) and the kernel's object counts (`rdma res`) where
 * they were.  While objects are alive the counts must have moved, which
 * shows that the measures can see a leak.
 */
#include <stdlib.h>
#include <unistd.h>

#include "vmtest.h"

enum { LOOPS = 20 };

static struct ibv_context *ctx;
static struct ibv_device_attr dev;
static struct ibv_pd *pd;
static char *buf;
static long page;
static const char *devname;

struct counts {
	int fds, maps;
	char res[256];
};

static void take(struct counts *c)
{
	c->fds = vt_count_fds();
	c->maps = vt_count_maps();
	if (!vt_rdma_res(devname, c->res, sizeof(c->res)))
		snprintf(c->res, sizeof(c->res), "(rdma res failed)");
}

static void same(const char *what, const struct counts *before)
{
	struct counts now;

	take(&now);
	printf("   %s: %d fds, %d maps, rdma res %s\n", what, now.fds, now.maps, now.res);
	CHECK(now.fds == before->fds, "%s: %d fds, %d before", what, now.fds, before->fds);
	CHECK(now.maps == before->maps, "%s: %d mappings, %d before", what, now.maps,
	      before->maps);
	CHECK(!strcmp(now.res, before->res), "%s: rdma res '%s', before '%s'", what, now.res,
	      before->res);
}

/* ------------------------------------------------------------------ */

static void failing_creations(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qp = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = dev.max_qp_wr + 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr srq = { .attr = { .max_wr = dev.max_srq_wr + 1, .max_sge = 1 } };
	struct ibv_ah_attr ah = { .port_num = 2, .is_global = 1,
				  .grh = { .sgid_index = 1, .hop_limit = 1 } };
	int unexpected = 0;

	for (int i = 0; i < LOOPS; i++) {
		unexpected += !!ibv_create_cq(ctx, dev.max_cqe + 1, NULL, NULL, 0);
		unexpected += !!ibv_create_cq(ctx, 4, NULL, NULL, 1000);
		unexpected += !!ibv_create_qp(pd, &qp);
		unexpected += !!ibv_create_srq(pd, &srq);
		unexpected += !!ibv_create_ah(pd, &ah);
		unexpected += !!ibv_reg_mr(pd, buf, page, IBV_ACCESS_REMOTE_WRITE);
		unexpected += !!ibv_reg_mr(pd, NULL, page, IBV_ACCESS_LOCAL_WRITE);
		unexpected += !!ibv_reg_mr(pd, buf, page, IBV_ACCESS_LOCAL_WRITE |
						       IBV_ACCESS_ON_DEMAND);
	}
	CHECK(unexpected == 0, "%d of the bad creations succeeded", unexpected);
}

/* One of everything on ctx, then all destroyed; false if a step failed. */
static bool one_of_each(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	struct ibv_srq *srq = cq ? ibv_create_srq(pd, &(struct ibv_srq_init_attr){
					.attr = { .max_wr = 16, .max_sge = 1 } }) : NULL;
	struct ibv_qp *a = srq ? vt_create_rc_qp(pd, cq) : NULL;
	struct ibv_qp *b = a ? vt_create_rc_qp(pd, cq) : NULL;
	struct ibv_qp *ud = b ? ibv_create_qp(pd, &(struct ibv_qp_init_attr){
					.send_cq = cq, .recv_cq = cq, .srq = srq,
					.qp_type = IBV_QPT_UD,
					.cap = { .max_send_wr = 4, .max_send_sge = 1 } }) : NULL;
	struct ibv_mr *mr = ud ? ibv_reg_mr(pd, buf, 2 * page, IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND) : NULL;
	struct ibv_mw *mw = mr ? ibv_alloc_mw(pd, IBV_MW_TYPE_2) : NULL;
	struct ibv_ah_attr ah_attr = { .port_num = 1, .is_global = 1,
				       .grh = { .sgid_index = vt_gid_index(), .hop_limit = 1 } };
	struct ibv_ah *ah = NULL;
	bool ok;

	if (mw && !ibv_query_gid(ctx, 1, vt_gid_index(), &ah_attr.grh.dgid))
		ah = ibv_create_ah(pd, &ah_attr);
	ok = ah && !vt_connect_rc(a, b);
	if (!ok)
		printf("   one_of_each: %s\n", strerror(errno));
	if (ah && ibv_destroy_ah(ah))
		ok = false;
	if (mw && ibv_dealloc_mw(mw))
		ok = false;
	if (mr && ibv_dereg_mr(mr))
		ok = false;
	if (ud && ibv_destroy_qp(ud))
		ok = false;
	if (b && ibv_destroy_qp(b))
		ok = false;
	if (a && ibv_destroy_qp(a))
		ok = false;
	if (srq && ibv_destroy_srq(srq))
		ok = false;
	if (cq && ibv_destroy_cq(cq))
		ok = false;
	if (ch && ibv_destroy_comp_channel(ch))
		ok = false;
	return ok;
}

static bool open_and_close(void)
{
	struct ibv_context *c = vt_open_rxe();
	struct ibv_pd *p = c ? ibv_alloc_pd(c) : NULL;
	struct ibv_cq *cq = p ? ibv_create_cq(c, 4, NULL, NULL, 0) : NULL;
	bool ok = cq != NULL;

	/* ibv_close_device(3): objects are the caller's to release first */
	if (cq && ibv_destroy_cq(cq))
		ok = false;
	if (p && ibv_dealloc_pd(p))
		ok = false;
	if (c && ibv_close_device(c))
		ok = false;
	return ok;
}

static bool list_and_free(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (!list)
		return false;
	ibv_free_device_list(list);
	return n > 0;
}

int main(void)
{
	struct counts base, alive;
	struct ibv_cq *cq;
	int bad;

	page = sysconf(_SC_PAGESIZE);
	devname = getenv("RDMAVM_RXE_DEV") ? getenv("RDMAVM_RXE_DEV") : "rxe0";
	vt_init("verbs-leaks");
	if (!MUST(!posix_memalign((void **)&buf, page, 4 * page)))
		return vt_finish();
	if (!MUST(ctx = vt_open_rxe()))
		return vt_finish();
	if (!MUST(!ibv_query_device(ctx, &dev)))
		return vt_finish();
	if (!MUST(pd = ibv_alloc_pd(ctx)))
		return vt_finish();
	if (!MUST(cq = ibv_create_cq(ctx, 4, NULL, NULL, 0)))
		return vt_finish();

	/* once each first: one-time setup (caches, lazily loaded code)
	 * is not a leak */
	failing_creations(cq);
	if (!MUST(one_of_each()))
		return vt_finish();
	if (!MUST(open_and_close()))
		return vt_finish();
	if (!MUST(list_and_free()))
		return vt_finish();

	printf("-- failing creations, %d rounds\n", LOOPS);
	take(&base);
	printf("   before: %d fds, %d maps, rdma res %s\n", base.fds, base.maps, base.res);
	failing_creations(cq);
	same("after the failures", &base);

	printf("-- one of each object, created and destroyed, %d rounds\n", LOOPS);
	bad = 0;
	for (int i = 0; i < LOOPS; i++)
		bad += !one_of_each();
	CHECK(bad == 0, "%d rounds failed", bad);
	same("after the rounds", &base);

	printf("-- contexts with objects, opened and closed, %d rounds\n", LOOPS);
	bad = 0;
	for (int i = 0; i < LOOPS; i++)
		bad += !open_and_close();
	CHECK(bad == 0, "%d rounds failed", bad);
	same("after the rounds", &base);

	printf("-- device lists, got and freed, %d rounds\n", LOOPS);
	bad = 0;
	for (int i = 0; i < LOOPS; i++)
		bad += !list_and_free();
	CHECK(bad == 0, "%d rounds failed", bad);
	same("after the rounds", &base);

	printf("-- the measures see live objects\n");
	{
		struct ibv_context *c = vt_open_rxe();
		struct ibv_pd *p = c ? ibv_alloc_pd(c) : NULL;
		struct ibv_cq *q = p ? ibv_create_cq(c, 4, NULL, NULL, 0) : NULL;
		struct ibv_qp *qp = q ? vt_create_rc_qp(p, q) : NULL;

		take(&alive);
		printf("   alive: %d fds, %d maps, rdma res %s\n", alive.fds, alive.maps,
		       alive.res);
		CHECK(alive.fds > base.fds, "a new context added no fd");
		CHECK(alive.maps > base.maps, "a QP and CQ added no mapping");
		CHECK(strcmp(alive.res, base.res) != 0, "rdma res did not change");
		if (qp)
			ibv_destroy_qp(qp);
		if (q)
			ibv_destroy_cq(q);
		if (p)
			ibv_dealloc_pd(p);
		if (c)
			ibv_close_device(c);
		same("after destroying them", &base);
	}

	EXPECT_RET(0, ibv_destroy_cq(cq));
	EXPECT_RET(0, ibv_dealloc_pd(pd));
	EXPECT_RET(0, ibv_close_device(ctx));
	free(buf);
	return vt_finish();
}
