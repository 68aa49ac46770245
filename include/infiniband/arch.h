/* SPDX-License-Identifier: MIT */
/*
 * Obsolete: only 64-bit byte-order helpers are left, for old programs.
 * New code should use htobe64()/be64toh() from <endian.h>.
 */
#ifndef INFINIBAND_ARCH_H
#define INFINIBAND_ARCH_H

#include <stdint.h>
#include <endian.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compiler builtins, so strict ISO modes without htobe64() work too. */
static inline __attribute__((deprecated)) uint64_t htonll(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}
/* Macros too, so callers can test for the helpers with #ifdef. */
#define htonll htonll

static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}
#define ntohll ntohll

#ifdef __cplusplus
}
#endif

#endif
