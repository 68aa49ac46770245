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

#define EXPECT(cond)                                             \
	do {                                                     \
		if (!(cond)) {                                   \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			return 1;                                \
		}                                                \
		printf("ok %s\n", #cond);                        \
	} while (0)

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	EXPECT(p != MAP_FAILED);
	EXPECT(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED);
	EXPECT(ibv_fork_init() == 0);
	EXPECT(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED);
	EXPECT(ibv_dontfork_range(p, page) == 0);
	EXPECT(!vt_dontfork(p));
	return 0;
}
