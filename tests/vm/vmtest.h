/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the vm suite's C tests (the .c files here): checks
 * that print what they saw, the device under test, loopback RC queue pairs.
 * The tests use only the public API, so the same binary also runs on
 * upstream's libibverbs (on-both.sh); vt_upstream says which one it got,
 * for the few places where the two are allowed to differ.
 */
#ifndef VMTEST_H
#define VMTEST_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>

/* Failed checks so far, from any thread. */
extern atomic_int vt_failures;
/* The libibverbs we run on is upstream's (its path, vt_libibverbs, is
 * under $OPENVERBS_REFERENCE_ROOT or a system directory). */
extern bool vt_upstream;
/* The provider driving the devices is upstream's: on upstream's
 * libibverbs, or on ours in plugin mode (VM_PLUGINS, lib.sh: Debian's
 * rxe/siw plugins instead of our built-ins).  Provider behaviour (what a
 * post returns, which states it refuses) follows this, not vt_upstream. */
extern bool vt_upstream_provider;
extern char vt_libibverbs[];

/* Prints the test's name and which libibverbs it loaded. */
void vt_init(const char *name);
/* Prints the outcome; the exit status for main(): 1 if any check
 * failed, else 0. */
int vt_finish(void);

/*
 * One meaning each, and none of them changes the control flow: the
 * caller writes every return, exit and skip.
 *
 * vt_fail(fmt, ...)   records a failure: "FAIL file:line: message".
 * CHECK(cond, fmt, ...)
 *                     "ok cond" when cond holds, else vt_fail(fmt, ...);
 *                     the test goes on.
 * MUST(cond)          a step that what follows needs: false, having
 *                     recorded the failure as "FATAL file:line: cond
 *                     (errno)", when cond does not hold.  The caller
 *                     stops, normally with
 *                         if (!MUST(pd = ibv_alloc_pd(ctx)))
 *                                 return vt_finish();
 *                     (exit(vt_finish()) outside main).
 * vt_skip(fmt, ...)   says that a sub-case is not run here and why
 *                     ("skip message"), e.g. on upstream's library;
 *                     neither a pass nor a failure.
 *
 * All of them may be used from any thread.
 */
#define vt_fail(...) vt_failed(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...) vt_check(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define MUST(cond) vt_must(!!(cond), #cond, __FILE__, __LINE__)

void vt_failed(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool vt_check(bool ok, const char *cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool vt_must(bool ok, const char *cond, const char *file, int line);
void vt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A verb that returns 0 or an errno value: it must return want. */
#define EXPECT_RET(want, call) vt_expect_ret(want, call, #call, __LINE__)
/* A verb that returns 0 or -1 with errno: it must fail with want (or
 * succeed, for want == 0). */
#define EXPECT_ERRNO(want, call)					\
	(errno = 0, vt_expect_errno(want, (call) == 0 ? 0 : errno, #call, __LINE__))
/* A verb that returns an object or NULL with errno: NULL with want (or
 * an object, for want == 0, which is handed to put_back, as is one
 * made by mistake).  NULL with errno left at 0 counts as VT_NO_ERRNO. */
#define VT_NO_ERRNO (-1)
#define EXPECT_NULL(want, call, put_back) do {				\
	void *vt_obj_;							\
	errno = 0;							\
	vt_obj_ = (call);						\
	vt_expect_errno(want, vt_obj_ ? 0 : errno ? errno : VT_NO_ERRNO, #call, __LINE__); \
	if (vt_obj_)							\
		put_back(vt_obj_);					\
} while (0)

bool vt_expect_ret(int want, int got, const char *what, int line);
bool vt_expect_errno(int want, int got, const char *what, int line);
const char *vt_errname(int err);

/* The rxe device ($RDMAVM_RXE_DEV) and its RoCE v2 IPv4 GID index
 * ($RDMAVM_RXE_GID); NULL with a message if it cannot be opened. */
struct ibv_context *vt_open_rxe(void);
int vt_gid_index(void);

/* Takes two RC QPs of the same device (port 1) from RESET to RTS,
 * connected to each other; 0 or an errno value. */
int vt_connect_rc(struct ibv_qp *a, struct ibv_qp *b);
/* The attributes of step 0, 1 or 2 (of VT_RC_STEPS) that take an RC QP
 * of port 1 from RESET to INIT, RTR and RTS towards remote_qpn at gid,
 * and the step's attribute mask: what vt_connect_rc applies, for tests
 * that modify QPs through another entry point. */
enum { VT_RC_STEPS = 3 };
int vt_rc_attr(int step, uint32_t remote_qpn, const union ibv_gid *gid, struct ibv_qp_attr *attr);
/* An RC QP with its own send and receive depth 16 on cq. */
struct ibv_qp *vt_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq);
/* Polls cq for one completion for up to ms milliseconds: 1, 0 on
 * timeout, or negative on a poll error. */
int vt_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms);
/* Milliseconds of CLOCK_MONOTONIC since start. */
long vt_ms_since(const struct timespec *start);
/* Waits up to ms for the child pid: its exit status (128 + signal if
 * killed), or -1 if it still runs. */
int vt_wait_child(pid_t pid, int ms);
/* Starts `rdma link delete dev` in a child (stdout flushed first) and
 * returns at once: the child's pid (for vt_wait_child), or -1.  Removing
 * rxe0 waits until every context on it is closed, so a test that keeps
 * one open cannot wait for the command itself. */
pid_t vt_start_link_delete(const char *dev);

/* Counts for leak checks: open fds, lines of /proc/self/maps. */
int vt_count_fds(void);
int vt_count_maps(void);
/* `rdma res` for the device: objects of each kind, as "pd 1 cq 2 ...";
 * false if rdma failed. */
bool vt_rdma_res(const char *dev, char *buf, size_t len);

/* Whether the mapping holding addr is kept out of fork() children
 * (MADV_DONTFORK: "dc" in /proc/self/smaps). */
bool vt_dontfork(const void *addr);

/* Runs a shell command in the guest, printing it; its exit status. */
int vt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
