/* SPDX-License-Identifier: MIT */
/*
 * The completion ring targets (fuzz_rxe_cq.c, fuzz_siw_cq.c): a provider
 * context over tests/unit's fake kernel, whose CREATE_CQ answer and ring
 * contents come from the input; the CQ is then polled dry, through
 * ibv_poll_cq or the extended polling calls, and destroyed.
 */
#ifndef OPENVERBS_TESTS_FUZZ_CQ_H
#define OPENVERBS_TESTS_FUZZ_CQ_H

#include "fuzz.h"
#include "unit.h"

/* Kernel memory: room for the largest ring a target announces. */
enum { CQ_KMEM = 17 * FAKE_PAGE, CQ_MAX_POLLS = 64 };

extern struct fuzz_input cq_input;

/* The ring's pages in kernel memory, filled from the input: its offset,
 * and its size in *size. */
static inline uint64_t cq_ring_from_input(size_t *size)
{
	uint64_t offset;

	*size = FAKE_PAGE * (1 + fuzz_u8(&cq_input) % 16);
	offset = fake_kernel_alloc(*size);
	fuzz_take(&cq_input, fake_kernel.mem + offset, *size);
	return offset;
}

/* The kernel refuses to map more than the object it made: a mapping
 * offset it cannot have given makes mmap() fail as it would. */
static inline uint64_t cq_key_for(uint64_t offset, size_t ring_size, uint64_t map_size)
{
	return map_size <= ring_size ? offset : 1;
}

/* Runs one input against the driver's fake kernel and sysfs record. */
int cq_fuzz_one(const struct fake_driver *driver, const struct verbs_sysfs_dev *sysfs,
		const uint8_t *data, size_t size);

#endif
