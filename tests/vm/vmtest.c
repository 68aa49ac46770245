// SPDX-License-Identifier: MIT
/* Shared pieces of the vm suite's C tests: see vmtest.h. */
#include <dirent.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

atomic_int vt_failures;
bool vt_upstream;
bool vt_upstream_provider;
char vt_libibverbs[PATH_MAX];

void vt_init(const char *name)
{
	const char *build = getenv("OPENVERBS_BUILD_ROOT");
	const char *plugins = getenv("VM_PLUGINS");
	char ours[PATH_MAX];
	Dl_info info;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dladdr((void *)ibv_get_device_list, &info) && info.dli_fname)
		if (!realpath(info.dli_fname, vt_libibverbs))
			snprintf(vt_libibverbs, PATH_MAX, "%s", info.dli_fname);
	/* ours is BUILD/libverbs/libibverbs.so.*; the reference tree is
	 * under BUILD too, so compare the directory */
	vt_upstream = !build || !realpath(build, ours) ||
		      strncmp(vt_libibverbs, ours, strlen(ours)) != 0 ||
		      strncmp(vt_libibverbs + strlen(ours), "/libverbs/", 10) != 0;
	vt_upstream_provider = vt_upstream || plugins;
	printf("== %s on %s libibverbs (%s)%s%s\n", name, vt_upstream ? "upstream's" : "our",
	       vt_libibverbs, !vt_upstream && plugins ? ", providers: Debian's plugins " : "",
	       !vt_upstream && plugins ? plugins : "");
}

int vt_finish(void)
{
	if (vt_failures) {
		printf("FAILED: %d check(s)\n", vt_failures);
		return 1;
	}
	printf("PASS: all checks\n");
	return 0;
}

static void vt_vfailed(const char *file, int line, const char *fmt, va_list ap)
{
	/* one line even when threads fail at once: stdout is line
	 * buffered and each line goes out in one write */
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	atomic_fetch_add(&vt_failures, 1);
	printf("FAIL %s:%d: %s\n", file, line, msg);
}

void vt_failed(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_vfailed(file, line, fmt, ap);
	va_end(ap);
}

bool vt_check(bool ok, const char *cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %s\n", cond);
		return true;
	}
	va_start(ap, fmt);
	vt_vfailed(file, line, fmt, ap);
	va_end(ap);
	return false;
}

bool vt_must(bool ok, const char *cond, const char *file, int line)
{
	int err = errno;

	if (ok)
		return true;
	atomic_fetch_add(&vt_failures, 1);
	printf("FATAL %s:%d: %s (errno %d: %s)\n", file, line, cond, err, strerror(err));
	return false;
}

void vt_skip(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("skip %s\n", msg);
}

const char *vt_errname(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ 0, "success" }, { EINVAL, "EINVAL" }, { EBUSY, "EBUSY" },
		{ ENOMEM, "ENOMEM" }, { EIO, "EIO" }, { ENODEV, "ENODEV" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { EPERM, "EPERM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { ENOENT, "ENOENT" }, { ENOSYS, "ENOSYS" },
		{ ENODATA, "ENODATA" }, { ENXIO, "ENXIO" }, { EAGAIN, "EAGAIN" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" }, { ENOTTY, "ENOTTY" },
		{ EBADF, "EBADF" }, { ENOSPC, "ENOSPC" }, { EEXIST, "EEXIST" },
		{ ERANGE, "ERANGE" }, { E2BIG, "E2BIG" }, { EINTR, "EINTR" },
		{ EINPROGRESS, "EINPROGRESS" }, { ECONNREFUSED, "ECONNREFUSED" },
		{ ETIMEDOUT, "ETIMEDOUT" },
	};
	/* a few, so that one message can name two errnos */
	static _Thread_local char other[4][32];
	static _Thread_local unsigned int next;

	if (err == VT_NO_ERRNO)
		return "failure without errno";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	next = (next + 1) % 4;
	snprintf(other[next], sizeof(other[next]), "errno %d", err);
	return other[next];
}

bool vt_expect_ret(int want, int got, const char *what, int line)
{
	/* errno values by name; 0 and negative codes (ibv_rereg_mr's) as is */
	if (got == want) {
		if (got > 0)
			printf("ok %s -> %s\n", what, vt_errname(got));
		else
			printf("ok %s -> %d\n", what, got);
		return true;
	}
	atomic_fetch_add(&vt_failures, 1);
	printf("FAIL line %d: %s -> %d (%s), want %d (%s)\n", line, what, got,
	       got > 0 ? vt_errname(got) : got < 0 ? vt_errname(-got) : "success",
	       want, want > 0 ? vt_errname(want) : "");
	return false;
}

bool vt_expect_errno(int want, int got, const char *what, int line)
{
	if (got == want) {
		printf("ok %s -> %s\n", what, want ? vt_errname(want) : "success");
		return true;
	}
	atomic_fetch_add(&vt_failures, 1);
	printf("FAIL line %d: %s -> %s, want %s\n", line, what,
	       got ? vt_errname(got) : "success", vt_errname(want));
	return false;
}

struct ibv_context *vt_open_rxe(void)
{
	const char *name = getenv("RDMAVM_RXE_DEV");
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n;

	if (!name)
		name = "rxe0";
	list = ibv_get_device_list(&n);
	if (!list) {
		printf("ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		printf("cannot open %s: %s\n", name, strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

int vt_gid_index(void)
{
	const char *gid = getenv("RDMAVM_RXE_GID");

	return gid ? atoi(gid) : 1;
}

struct ibv_qp *vt_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	return ibv_create_qp(pd, &attr);
}

int vt_rc_attr(int step, uint32_t remote_qpn, const union ibv_gid *gid, struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	switch (step) {
	case 0:
		attr->qp_state = IBV_QPS_INIT;
		attr->port_num = 1;
		attr->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	case 1:
		attr->qp_state = IBV_QPS_RTR;
		attr->path_mtu = IBV_MTU_1024;
		attr->dest_qp_num = remote_qpn;
		attr->max_dest_rd_atomic = 1;
		attr->min_rnr_timer = 12;
		attr->ah_attr.is_global = 1;
		attr->ah_attr.grh.dgid = *gid;
		attr->ah_attr.grh.sgid_index = vt_gid_index();
		attr->ah_attr.grh.hop_limit = 1;
		attr->ah_attr.port_num = 1;
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	default:
		attr->qp_state = IBV_QPS_RTS;
		attr->timeout = 14;
		attr->retry_cnt = 7;
		attr->rnr_retry = 7;
		attr->max_rd_atomic = 1;
		return IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	}
}

static int to_rts(struct ibv_qp *qp, uint32_t remote_qpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr attr;

	for (int step = 0; step < VT_RC_STEPS; step++) {
		int mask = vt_rc_attr(step, remote_qpn, gid, &attr);
		int ret = ibv_modify_qp(qp, &attr, mask);

		if (ret)
			return ret;
	}
	return 0;
}

int vt_connect_rc(struct ibv_qp *a, struct ibv_qp *b)
{
	union ibv_gid gid;
	int ret;

	if (ibv_query_gid(a->context, 1, vt_gid_index(), &gid))
		return errno;
	ret = to_rts(a, b->qp_num, &gid);
	return ret ? ret : to_rts(b, a->qp_num, &gid);
}

int vt_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 > ms)
			return 0;
		poll(NULL, 0, 1);
	}
}

int vt_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

int vt_count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	int c, n = 0;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

bool vt_rdma_res(const char *dev, char *buf, size_t len)
{
	char line[512], cmd[128];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "rdma res show %s 2>&1", dev);
	p = popen(cmd, "re");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		char *rest = strstr(line, ": ");

		/* "0: rxe0: pd 1 cq 1 qp 2 cm_id 0 mr 1 ctx 1 srq 0" */
		if (!found && rest && (rest = strstr(rest + 2, ": "))) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", rest + 2);
			found = true;
		}
	}
	return pclose(p) == 0 && found;
}

bool vt_dontfork(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	uintptr_t lo, hi, a = (uintptr_t)addr;
	bool inside = false, dc = false;
	char line[1024];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
			inside = lo <= a && a < hi;
		} else if (inside && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

int vt_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	printf("$ %s\n", cmd);
	fflush(stdout);
	st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

pid_t vt_start_link_delete(const char *dev)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execlp("rdma", "rdma", "link", "delete", dev, (char *)NULL);
		_exit(127);
	}
	return pid;
}

long vt_ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int vt_wait_child(pid_t pid, int ms)
{
	int st;

	for (int t = 0; t <= ms; t += 50) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(50 * 1000);
	}
	return -1;
}
