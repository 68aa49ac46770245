/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer targets share: a cursor over the input, from which a
 * target takes its few choices (an operation, a length) before handing
 * the rest to the parser as the bytes from outside.
 */
#ifndef OPENVERBS_TESTS_FUZZ_H
#define OPENVERBS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

/* Copies up to n bytes into dst, zeroing what the input runs short of:
 * how many came from the input. */
static inline size_t fuzz_take(struct fuzz_input *in, void *dst, size_t n)
{
	size_t got = n < in->left ? n : in->left;

	memcpy(dst, in->p, got);
	memset((uint8_t *)dst + got, 0, n - got);
	in->p += got;
	in->left -= got;
	return got;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	uint8_t v;

	fuzz_take(in, &v, 1);
	return v;
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
	uint32_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

/* A NUL-terminated string of at most size - 1 bytes, ending at the
 * input's next NUL (consumed) or its end. */
static inline void fuzz_string(struct fuzz_input *in, char *dst, size_t size)
{
	size_t n = 0;

	while (in->left && n + 1 < size) {
		in->left--;
		if (!(dst[n] = (char)*in->p++))
			return;
		n++;
	}
	dst[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
