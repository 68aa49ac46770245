// SPDX-License-Identifier: MIT
/* Shared pieces of the vm suite's librdmacm tests: see cmtest.h. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmtest.h"

bool vt_cm_upstream;
char vt_librdmacm[PATH_MAX];

void vt_cm_init(const char *name)
{
	const char *build = getenv("OPENVERBS_BUILD_ROOT");
	char ours[PATH_MAX];
	Dl_info info;

	vt_init(name);
	if (dladdr((void *)rdma_create_id, &info) && info.dli_fname)
		if (!realpath(info.dli_fname, vt_librdmacm))
			snprintf(vt_librdmacm, PATH_MAX, "%s", info.dli_fname);
	vt_cm_upstream = !build || !realpath(build, ours) ||
			 strncmp(vt_librdmacm, ours, strlen(ours)) != 0 ||
			 strncmp(vt_librdmacm + strlen(ours), "/librdmacm/", 11) != 0;
	printf("== on %s librdmacm (%s)\n", vt_cm_upstream ? "upstream's" : "our", vt_librdmacm);
}

struct sockaddr_in vt_cm_addr(const char *env, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	const char *ip = getenv(env);

	if (!ip || inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		vt_fail("no address in $%s", env);
	return sin;
}

bool vt_cm_pending(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

struct rdma_cm_event *vt_cm_event(struct rdma_event_channel *ch,
				  enum rdma_cm_event_type want, int ms)
{
	struct rdma_cm_event *ev;

	if (!vt_cm_pending(ch, ms)) {
		vt_fail("no event within %d ms, wanted %s", ms, rdma_event_str(want));
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		vt_fail("rdma_get_cm_event: %s", strerror(errno));
		return NULL;
	}
	if (ev->event != want) {
		vt_fail("event %s (status %d), wanted %s", rdma_event_str(ev->event),
			ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return NULL;
	}
	printf("ok event %s (status %d)\n", rdma_event_str(ev->event), ev->status);
	return ev;
}

int vt_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
