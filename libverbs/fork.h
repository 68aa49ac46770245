/* SPDX-License-Identifier: MIT */
/*
 * Fork safety: the pages that RDMA hardware may be reading or writing must
 * not become copy-on-write in a child, so they are marked MADV_DONTFORK for
 * as long as anything references them.  References are counted per page in
 * a red-black tree of disjoint, page-aligned ranges, also hashed by start
 * address so that re-referencing a known range costs O(1).
 *
 * Three parts: the public API and the kernel's copy-on-fork question
 * (fork.c), the tree (fork_tree.c) and the page-size lookup for huge
 * pages (fork_page_size.c).  Nothing here is exported beyond the ibv_*
 * calls.
 *
 * What the rest of libibverbs must do:
 *  - call verbs_fork_init_from_env() once, from the library's one-time
 *    initialisation (ibv_get_device_list), which is when upstream reads
 *    the variables;
 *  - bracket every buffer it pins (MRs, queue and doorbell buffers) with
 *    ibv_dontfork_range() / ibv_dofork_range(), whether or not fork safety
 *    is on: a call made while it is off is also what makes a later
 *    ibv_fork_init() fail with EINVAL, as upstream's does.
 */
#ifndef OPENVERBS_FORK_H
#define OPENVERBS_FORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"

/* ---- The public part (fork.c) ---- */

#pragma GCC visibility push(default)
/* Exported since IBVERBS_1.1 but declared in no public header: upstream
 * keeps them in its provider interface. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
#pragma GCC visibility pop

/* Applies RDMAV_FORK_SAFE / IBV_FORK_SAFE (set to anything but "0"): 0 when
 * neither asks for fork safety, else what ibv_fork_init() returned. */
int verbs_fork_init_from_env(void);

/* Whether the kernel copies pinned pages into a child (RDMA netlink); a
 * seam so tests can pretend it does.  Asked once per process. */
extern bool (*verbs_fork_kernel_copies_on_fork)(void);

/* ---- The interval tree (fork_tree.c) ---- */

/* A run of pages [start, end) with the same reference count (> 0).  Nodes
 * are also linked in address order, so walking a range costs O(1) a step. */
struct fork_range {
	struct fork_range *left, *right, *parent;
	struct fork_range *prev, *next;
	struct fork_range *hash_next;	/* chain in fork_tree.by_start */
	uintptr_t start, end;
	unsigned long refs;
	bool red;
};

struct fork_tree {
	struct fork_range *root;
	/* Every range hashed by start address, when the table could be had:
	 * re-referencing a known range then skips the tree walk. */
	struct fork_range **by_start;
	unsigned int by_start_bits;
	size_t nranges;
	/* Nodes kept for reuse, so splits never fail half way through. */
	struct fork_range *spare;
	unsigned int nspare;
	/* madvise(2) in production; the seam unit tests count and break. */
	int (*advise)(void *addr, size_t len, int advice);
};

/*
 * Add (delta +1, MADV_DONTFORK on pages going 0 -> 1) or drop (delta -1,
 * MADV_DOFORK on pages going 1 -> 0; pages already at 0 stay there) one
 * reference on the page-aligned range [start, end).  All or nothing: 0, or
 * an errno value with the tree and the pages' advice as they were.
 */
int fork_tree_update(struct fork_tree *tree, uintptr_t start, uintptr_t end, int delta);

/* Frees every node; the tree is left empty and usable. */
void fork_tree_clear(struct fork_tree *tree);

/* ---- Page size of a mapping (fork_page_size.c) ---- */

/* The kernel page size of the mapping that holds addr, read from an smaps
 * listing; 0 when no mapping there holds it. */
size_t fork_smaps_page_size(FILE *smaps, uintptr_t addr);

/* The same for this process (/proc/self/smaps); 0 when unknown. */
size_t fork_mapping_page_size(uintptr_t addr);

#endif
