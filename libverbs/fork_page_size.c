/* SPDX-License-Identifier: MIT */
/*
 * Fork safety's page-size lookup: with RDMAV_HUGEPAGES_SAFE set, a range
 * is widened to whole pages of the mapping that holds it, which may be
 * huge pages; /proc/self/smaps says how large they are.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "fork.h"

size_t fork_smaps_page_size(FILE *smaps, uintptr_t addr)
{
	char *line = NULL;
	size_t cap = 0, size = 0;
	bool inside = false;
	uintptr_t lo, hi;
	unsigned long kb;

	while (getline(&line, &cap, smaps) > 0) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
			/* Mappings come in address order: stop once past addr. */
			if (lo > addr)
				break;
			inside = addr < hi;
		} else if (inside && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1) {
			size = kb * 1024;
			break;
		}
	}
	free(line);
	return size;
}

size_t fork_mapping_page_size(uintptr_t addr)
{
	FILE *smaps = fopen("/proc/self/smaps", "re");
	size_t size = 0;

	if (smaps) {
		size = fork_smaps_page_size(smaps, addr);
		fclose(smaps);
	}
	return size;
}
