// SPDX-License-Identifier: MIT
/*
 * Threads under stress, on rxe0 (and siw0 for the object churn).
 *
 * Upstream documents every verb as thread-safe, posting and polling on
 * one QP, SRQ or CQ from several threads included.  So here, all at once:
 *
 *  - N data threads each post sends and SRQ receives on one shared RC
 *    loopback pair (one CQ, one SRQ, one sending QP for all of them) and
 *    on a pair of their own, and every one of them polls the shared CQ:
 *    a completion is often reaped by another thread than its poster.
 *    Every wr_id must complete exactly once with success, and every
 *    message must arrive exactly once with its bytes intact (a payload
 *    names its sender and sequence number, so a stale or doubled
 *    buffer shows as a duplicate).
 *  - churn threads create and destroy PDs, MRs, CQs, QPs and AHs on the
 *    data threads' context (and on siw0's, where the device exists);
 *  - one thread rescans the devices (ibv_get_device_list/free);
 *  - one thread forks children that write their copies of the
 *    registered buffers and exit, with fork protection asked for
 *    (ibv_fork_init(), or RDMAV_FORK_SAFE from the environment): the
 *    data threads' checks are what shows the parent unharmed.
 *
 * siw's RC QPs connect only through rdma_cm (iWARP), so its data path is
 * not stressed here; its object verbs are.
 *
 * Usage: vm-stress [THREADS [ITERATIONS [SECONDS]]] (4, 2000, 100): an
 * alarm stops a run that takes longer than SECONDS, with exit status 3.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <valgrind/helgrind.h>
#include <valgrind/drd.h>

#include "vmtest.h"

/* Messages a thread has in flight on one lane, each in its own slot. */
enum { SLOTS = 4, MSG = 128, POLL_BATCH = 8, WAIT_MS = 20000 };
enum kind { SEND, RECV, KINDS };

/*
 * An RC loopback pair: tx sends, rx receives from srq, both complete on
 * cq.  users threads share it; each owns SLOTS send and SLOTS receive
 * buffers in the registered buf.  The bookkeeping (which wr_id
 * completed, which message arrived, which slot is free) is atomics and
 * takes no lock: a lock around it would order the polls and posts of
 * different threads, and a provider that forgot its own locking would
 * pass (natively the threads would rarely overlap in ibv_poll_cq, and
 * helgrind and drd would see every poll ordered by the test's mutex).
 */
struct lane {
	const char *name;
	int users;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *tx, *rx;
	struct ibv_mr *mr;
	unsigned char *buf;
	atomic_uchar *completed[KINDS];	/* [user * iterations + seq] */
	atomic_uchar *delivered;	/* [user * iterations + seq] */
	atomic_bool *busy[KINDS];	/* [user * SLOTS + slot] */
};

struct header {
	uint32_t user;
	uint32_t seq;
};

static int threads = 4, iterations = 2000;
static struct ibv_context *ctx, *siw_ctx;
static struct ibv_pd *pd;
static struct lane shared, *own;
static atomic_bool data_done;
static atomic_long churned, rescans, forks;

static uint64_t wr_id_of(enum kind kind, int user, int seq)
{
	return (uint64_t)kind << 48 | (uint64_t)user << 32 | (uint32_t)seq;
}

static unsigned char pattern(uint32_t user, uint32_t seq, size_t i)
{
	return (unsigned char)(user * 131 + seq * 7 + i);
}

static unsigned char *slot_buf(struct lane *l, enum kind kind, int user, int slot)
{
	return l->buf + (((size_t)kind * l->users + user) * SLOTS + slot) * MSG;
}

/*
 * Neither valgrind tool models C11 atomics: they would report the
 * bookkeeping's plain loads against its locked stores.  They are told
 * to ignore exactly that memory, which orders nothing, so the polls and
 * posts of different threads stay unordered for them too (a no-op
 * natively).
 */
static void *untracked(void *mem, size_t len)
{
	if (mem) {
		VALGRIND_HG_DISABLE_CHECKING(mem, len);
		VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__DRD_START_SUPPRESSION, mem, len, 0, 0,
						0);
	}
	return mem;
}

static bool lane_init(struct lane *l, const char *name, int users)
{
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = users * SLOTS, .max_sge = 1 },
	};
	struct ibv_qp_init_attr qp_attr = {
		.cap = { .max_send_wr = users * SLOTS, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	size_t len = (size_t)KINDS * users * SLOTS * MSG;
	size_t marks = (size_t)users * iterations;

	l->name = name;
	l->users = users;
	for (int k = 0; k < KINDS; k++) {
		l->completed[k] = untracked(calloc(marks, sizeof(atomic_uchar)), marks);
		l->busy[k] = untracked(calloc((size_t)users * SLOTS, sizeof(atomic_bool)),
				       (size_t)users * SLOTS * sizeof(atomic_bool));
		if (!MUST(l->completed[k] && l->busy[k]))
			return false;
	}
	l->delivered = untracked(calloc(marks, sizeof(atomic_uchar)), marks);
	l->buf = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	if (!MUST(l->delivered && l->buf))
		return false;
	memset(l->buf, 0, len);
	if (!MUST(l->cq = ibv_create_cq(ctx, 2 * users * SLOTS + 1, NULL, NULL, 0)) ||
	    !MUST(l->srq = ibv_create_srq(pd, &srq_attr)) ||
	    !MUST(l->mr = ibv_reg_mr(pd, l->buf, len, IBV_ACCESS_LOCAL_WRITE)))
		return false;
	qp_attr.send_cq = qp_attr.recv_cq = l->cq;
	if (!MUST(l->tx = ibv_create_qp(pd, &qp_attr)))
		return false;
	qp_attr.srq = l->srq;
	qp_attr.cap.max_send_wr = 1;
	if (!MUST(l->rx = ibv_create_qp(pd, &qp_attr)))
		return false;
	return MUST(vt_connect_rc(l->tx, l->rx) == 0);
}

static void lane_fini(struct lane *l)
{
	CHECK(!ibv_destroy_qp(l->rx) && !ibv_destroy_qp(l->tx) && !ibv_destroy_srq(l->srq) &&
	      !ibv_dereg_mr(l->mr) && !ibv_destroy_cq(l->cq), "%s: teardown: %s", l->name,
	      strerror(errno));
}

/* A message in a receive slot: the sender and sequence it names must be
 * in range, its bytes intact, and its first arrival. */
static void check_message(struct lane *l, const struct ibv_wc *wc, int user, int seq)
{
	const unsigned char *p = slot_buf(l, RECV, user, seq % SLOTS);
	struct header h;
	size_t bad = 0;

	if (wc->byte_len != MSG) {
		vt_fail("%s: receive %d/%d: %u bytes, want %d", l->name, user, seq, wc->byte_len, MSG);
		return;
	}
	memcpy(&h, p, sizeof(h));
	if (h.user >= (uint32_t)l->users || h.seq >= (uint32_t)iterations) {
		vt_fail("%s: receive %d/%d holds message %u/%u, out of range", l->name, user, seq,
			h.user, h.seq);
		return;
	}
	for (size_t i = sizeof(h); i < MSG; i++)
		bad += p[i] != pattern(h.user, h.seq, i);
	if (bad)
		vt_fail("%s: message %u/%u: %zu bytes wrong", l->name, h.user, h.seq, bad);
	if (atomic_fetch_add(&l->delivered[h.user * (size_t)iterations + h.seq], 1))
		vt_fail("%s: message %u/%u arrived twice", l->name, h.user, h.seq);
}

/* Reaps what the lane's CQ holds, whoever posted it. */
static void poll_lane(struct lane *l)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = ibv_poll_cq(l->cq, POLL_BATCH, wc);

	if (n < 0) {
		vt_fail("%s: ibv_poll_cq: %d", l->name, n);
		return;
	}
	for (int i = 0; i < n; i++) {
		enum kind kind = wc[i].wr_id >> 48;
		int user = (wc[i].wr_id >> 32) & 0xffff;
		int seq = (uint32_t)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS) {
			vt_fail("%s: wr_id %#llx: %s", l->name, (unsigned long long)wc[i].wr_id,
				ibv_wc_status_str(wc[i].status));
			continue;
		}
		if (kind >= KINDS || user >= l->users || seq >= iterations) {
			vt_fail("%s: unknown wr_id %#llx", l->name, (unsigned long long)wc[i].wr_id);
			continue;
		}
		if (kind != (wc[i].opcode == IBV_WC_RECV ? RECV : SEND))
			vt_fail("%s: wr_id %#llx completed as opcode %d", l->name,
				(unsigned long long)wc[i].wr_id, wc[i].opcode);
		if (atomic_fetch_add(&l->completed[kind][user * (size_t)iterations + seq], 1))
			vt_fail("%s: wr_id %#llx completed twice", l->name,
				(unsigned long long)wc[i].wr_id);
		if (kind == RECV)
			check_message(l, &wc[i], user, seq);
		/* release: the message is checked before its slot is refilled */
		atomic_store(&l->busy[kind][user * SLOTS + seq % SLOTS], false);
	}
}

static bool slot_busy(struct lane *l, enum kind kind, int user, int slot)
{
	return atomic_load(&l->busy[kind][user * SLOTS + slot]);
}

/* Polls the lane until the slot is free: false after WAIT_MS. */
static bool wait_slot(struct lane *l, enum kind kind, int user, int slot)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (slot_busy(l, kind, user, slot)) {
		poll_lane(l);
		if (vt_ms_since(&start) > WAIT_MS) {
			vt_fail("%s: user %d's %s slot %d never completed", l->name, user,
				kind == SEND ? "send" : "receive", slot);
			return false;
		}
	}
	return true;
}

/* One receive into the SRQ, then one message from tx. */
static bool post_pair(struct lane *l, int user, int seq)
{
	int slot = seq % SLOTS;
	unsigned char *out = slot_buf(l, SEND, user, slot);
	struct ibv_sge rsge = { .addr = (uintptr_t)slot_buf(l, RECV, user, slot), .length = MSG,
				.lkey = l->mr->lkey };
	struct ibv_sge ssge = { .addr = (uintptr_t)out, .length = MSG, .lkey = l->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = wr_id_of(RECV, user, seq), .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .wr_id = wr_id_of(SEND, user, seq), .sg_list = &ssge,
				   .num_sge = 1, .opcode = IBV_WR_SEND }, *sbad;
	struct header h = { .user = user, .seq = seq };
	int ret;

	if (!wait_slot(l, RECV, user, slot) || !wait_slot(l, SEND, user, slot))
		return false;
	atomic_store(&l->busy[RECV][user * SLOTS + slot], true);
	atomic_store(&l->busy[SEND][user * SLOTS + slot], true);
	memcpy(out, &h, sizeof(h));
	for (size_t i = sizeof(h); i < MSG; i++)
		out[i] = pattern(user, seq, i);
	ret = ibv_post_srq_recv(l->srq, &rwr, &rbad);
	if (ret) {
		vt_fail("%s: ibv_post_srq_recv %d/%d: %s", l->name, user, seq, strerror(ret));
		return false;
	}
	ret = ibv_post_send(l->tx, &swr, &sbad);
	if (ret) {
		vt_fail("%s: ibv_post_send %d/%d: %s", l->name, user, seq, strerror(ret));
		return false;
	}
	return true;
}

static void *data_thread(void *arg)
{
	int t = (int)(intptr_t)arg;
	struct lane *mine = &own[t];

	for (int seq = 0; seq < iterations; seq++) {
		if (!post_pair(&shared, t, seq) || !post_pair(mine, 0, seq))
			return NULL;
		poll_lane(&shared);
		poll_lane(mine);
	}
	for (int slot = 0; slot < SLOTS; slot++)
		for (int k = 0; k < KINDS; k++)
			if (!wait_slot(&shared, k, t, slot) || !wait_slot(mine, k, 0, slot))
				return NULL;
	return NULL;
}

/* Every wr_id completed and every message arrived, each exactly once. */
static void lane_account(struct lane *l)
{
	size_t missing[KINDS] = { 0 }, undelivered = 0, marks = (size_t)l->users * iterations;

	for (size_t i = 0; i < marks; i++) {
		for (int k = 0; k < KINDS; k++)
			missing[k] += !l->completed[k][i];
		undelivered += !l->delivered[i];
	}
	CHECK(!missing[SEND] && !missing[RECV] && !undelivered,
	      "%s: %zu sends, %zu receives never completed, %zu messages never arrived", l->name,
	      missing[SEND], missing[RECV], undelivered);
}

/* Objects of every kind made and destroyed on ctx, again and again. */
static bool churn_once(struct ibv_context *c, bool with_ah, void *mem)
{
	struct ibv_qp_init_attr qp_attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = vt_gid_index(), .hop_limit = 1 },
	};
	struct ibv_pd *p;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL;
	bool ok;

	if (!(p = ibv_alloc_pd(c)))
		return false;
	ok = (mr = ibv_reg_mr(p, mem, 4096, IBV_ACCESS_LOCAL_WRITE)) &&
	     (cq = ibv_create_cq(c, 8, NULL, NULL, 0));
	if (ok) {
		qp_attr.send_cq = qp_attr.recv_cq = cq;
		ok = (qp = ibv_create_qp(p, &qp_attr)) != NULL;
	}
	if (ok && with_ah) {
		ok = !ibv_query_gid(c, 1, vt_gid_index(), &ah_attr.grh.dgid) &&
		     (ah = ibv_create_ah(p, &ah_attr));
	}
	if (!ok)
		vt_fail("churn on %s: %s", ibv_get_device_name(c->device), strerror(errno));
	if ((ah && ibv_destroy_ah(ah)) || (qp && ibv_destroy_qp(qp)) ||
	    (cq && ibv_destroy_cq(cq)) || (mr && ibv_dereg_mr(mr)) || ibv_dealloc_pd(p)) {
		vt_fail("churn teardown on %s: %s", ibv_get_device_name(c->device), strerror(errno));
		ok = false;
	}
	return ok;
}

/* Under drd the data threads can finish before a helper is first
 * scheduled; every helper still does one round, or the check that each
 * ran would depend on the scheduler. */
static bool keep_going(long rounds_done)
{
	return rounds_done == 0 || !atomic_load(&data_done);
}

static void *churn_thread(void *arg)
{
	struct ibv_context *c = arg;
	void *mem = aligned_alloc(4096, 4096);

	if (!MUST(mem))
		return NULL;
	for (long round = 0; keep_going(round) && churn_once(c, c == ctx, mem); round++)
		atomic_fetch_add(&churned, 1);
	free(mem);
	return NULL;
}

static void *rescan_thread(void *arg)
{
	(void)arg;
	for (long round = 0; keep_going(round); round++) {
		struct ibv_device **list = ibv_get_device_list(NULL);
		bool found = false;

		for (struct ibv_device **d = list; d && *d; d++)
			found |= !strcmp(ibv_get_device_name(*d), ibv_get_device_name(ctx->device));
		ibv_free_device_list(list);
		if (!found) {
			vt_fail("rescan %ld: %s not listed", atomic_load(&rescans) + 1,
				ibv_get_device_name(ctx->device));
			return NULL;
		}
		atomic_fetch_add(&rescans, 1);
	}
	return NULL;
}

/* Children write all over their copies of the registered buffers and
 * leave; each must exit normally. */
static void *fork_thread(void *arg)
{
	(void)arg;
	for (long round = 0; keep_going(round); round++) {
		pid_t child = fork();
		int status;

		if (child < 0) {
			vt_fail("fork: %s", strerror(errno));
			return NULL;
		}
		if (child == 0) {
			/* The copies are this child's own now, which helgrind
			 * cannot know (a no-op natively) */
			VALGRIND_HG_CLEAN_MEMORY(shared.buf, shared.mr->length);
			for (int t = 0; t < threads; t++)
				VALGRIND_HG_CLEAN_MEMORY(own[t].buf, own[t].mr->length);
			memset(shared.buf, 0xee, shared.mr->length);
			for (int t = 0; t < threads; t++)
				memset(own[t].buf, 0xee, own[t].mr->length);
			_exit(0);
		}
		status = vt_wait_child(child, WAIT_MS);
		if (status != 0) {
			vt_fail("fork child %ld: status %d", atomic_load(&forks) + 1, status);
			return NULL;
		}
		atomic_fetch_add(&forks, 1);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	static const char msg[] = "FAIL: stress: time limit reached (a hang)\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(3);
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;

	for (struct ibv_device **d = list; d && *d; d++)
		if (!strcmp(ibv_get_device_name(*d), name))
			c = ibv_open_device(*d);
	ibv_free_device_list(list);
	return c;
}

int main(int argc, char **argv)
{
	int seconds = argc > 3 ? atoi(argv[3]) : 100;
	pthread_t *data, helpers[4];
	int nhelpers = 0;
	struct timespec start, begun;

	clock_gettime(CLOCK_MONOTONIC, &begun);
	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		iterations = atoi(argv[2]);
	if (threads < 1 || threads > 64 || iterations < 1 || seconds < 1) {
		fprintf(stderr, "usage: %s [THREADS 1-64 [ITERATIONS [SECONDS]]]\n", argv[0]);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm(seconds);
	vt_init("stress");
	printf("%d data threads x %d iterations, 2 churn threads, a rescan thread, a fork thread;"
	       " limit %d s\n", threads, iterations, seconds);
	if (getenv("RDMAV_FORK_SAFE"))
		printf("fork protection from RDMAV_FORK_SAFE\n");
	else if (!MUST(ibv_fork_init() == 0))
		return vt_finish();

	if (!MUST(ctx = vt_open_rxe()) || !MUST(pd = ibv_alloc_pd(ctx)))
		return vt_finish();
	own = calloc(threads, sizeof(*own));
	data = calloc(threads, sizeof(*data));
	if (!MUST(own && data) || !lane_init(&shared, "shared", threads))
		return vt_finish();
	for (int t = 0; t < threads; t++)
		if (!lane_init(&own[t], "own", 1))
			return vt_finish();
	siw_ctx = open_named("siw0");
	if (!siw_ctx)
		vt_skip("no siw0 here (%s): churn on rxe0 alone", strerror(errno));
	vt_skip("data path on siw0: its RC QPs connect only through rdma_cm (iWARP)");

	printf("set up in %ld ms\n", vt_ms_since(&begun));
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int t = 0; t < threads; t++)
		if (!MUST(pthread_create(&data[t], NULL, data_thread, (void *)(intptr_t)t) == 0))
			return vt_finish();
	if (!MUST(pthread_create(&helpers[nhelpers++], NULL, churn_thread, ctx) == 0) ||
	    !MUST(pthread_create(&helpers[nhelpers++], NULL, churn_thread,
				 siw_ctx ? siw_ctx : ctx) == 0) ||
	    !MUST(pthread_create(&helpers[nhelpers++], NULL, rescan_thread, NULL) == 0) ||
	    !MUST(pthread_create(&helpers[nhelpers++], NULL, fork_thread, NULL) == 0))
		return vt_finish();
	for (int t = 0; t < threads; t++)
		pthread_join(data[t], NULL);
	atomic_store(&data_done, true);
	for (int i = 0; i < nhelpers; i++)
		pthread_join(helpers[i], NULL);

	lane_account(&shared);
	for (int t = 0; t < threads; t++)
		lane_account(&own[t]);
	printf("%ld ms: %d messages on the shared pair, %d on each own pair; %ld churn rounds,"
	       " %ld rescans, %ld forks\n", vt_ms_since(&start), threads * iterations, iterations,
	       atomic_load(&churned), atomic_load(&rescans), atomic_load(&forks));
	CHECK(atomic_load(&churned) > 0 && atomic_load(&rescans) > 0 && atomic_load(&forks) > 0,
	      "a helper thread never got through one round");

	lane_fini(&shared);
	for (int t = 0; t < threads; t++)
		lane_fini(&own[t]);
	CHECK(!ibv_dealloc_pd(pd) && !ibv_close_device(ctx) &&
	      (!siw_ctx || !ibv_close_device(siw_ctx)), "teardown: %s", strerror(errno));
	printf("%ld ms in all\n", vt_ms_since(&begun));
	return vt_finish();
}
