/* SPDX-License-Identifier: MIT */
/*
 * The one-QP ping-pong that ibv_rc_pingpong, ibv_uc_pingpong and
 * ibv_ud_pingpong all are: each program only brings its QP type, its
 * options, its default message size and its usage text.
 */
#ifndef OPENVERBS_TOOLS_ONE_QP_H
#define OPENVERBS_TOOLS_ONE_QP_H

#include <getopt.h>

#include "pingpong.h"

/* RC's extra options; UC and UD take none of them. */
struct one_qp_extras {
	bool odp;		/* -o */
	bool implicit_odp;	/* -O */
	bool prefetch;		/* -P */
	bool timestamps;	/* -t */
	bool device_memory;	/* -j */
	bool new_send;		/* -N */
};

struct one_qp_program {
	enum ibv_qp_type qp_type;
	unsigned int default_size;
	const char *optstring;
	const struct option *longopts;
	const char *usage;	/* the lines after "Usage:" and the synopsis */
};

int one_qp_main(const struct one_qp_program *program, int argc, char *argv[]);

#endif
