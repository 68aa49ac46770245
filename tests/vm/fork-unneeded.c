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

int ibv_dontfork_range(void *base, size_t size);

/* Whether the kernel will leave the mapping holding addr out of a child. */
static bool vm_dontcopy(const void *addr)
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
	EXPECT(!vm_dontcopy(p));
	return 0;
}
