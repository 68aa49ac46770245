// SPDX-License-Identifier: MIT
/*
 * The guest's kernel (6.1) copies pinned pages into a fork()ed child, and
 * says so over RDMA netlink: fork safety must report itself unneeded, and
 * ibv_fork_init() and the range calls must do nothing.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vmtest.h"

int ibv_dontfork_range(void *base, size_t size);

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	vt_init("fork-unneeded");
	if (!MUST(p != MAP_FAILED))
		return vt_finish();
	if (!MUST(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED))
		return vt_finish();
	if (!MUST(ibv_fork_init() == 0))
		return vt_finish();
	if (!MUST(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED))
		return vt_finish();
	if (!MUST(ibv_dontfork_range(p, page) == 0))
		return vt_finish();
	CHECK(!vt_dontfork(p), "ibv_dontfork_range marked the page MADV_DONTFORK");
	return vt_finish();
}
