/* SPDX-License-Identifier: MIT */
/*
 * Which QPs of plugin contexts are extended ones: the core-side answer of
 * ibv_qp_to_qp_ex for them, as verbs_qp.comp_mask moved between plugin
 * releases (plugins.h, top).  Asked once per QP when it is set up, never
 * on the data path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "plugins.h"

enum { QP_EX_BUCKETS = 256 };

struct qp_ex_entry {
	const struct ibv_qp *qp;
	struct qp_ex_entry *next;
};

static pthread_mutex_t qp_ex_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qp_ex_entry *qp_ex_buckets[QP_EX_BUCKETS];

static struct qp_ex_entry **bucket_of(const struct ibv_qp *qp)
{
	uintptr_t key = (uintptr_t)qp;

	/* QP structs are at least 8-byte aligned and hundreds of bytes. */
	return &qp_ex_buckets[(key >> 6 ^ key >> 14) % QP_EX_BUCKETS];
}

int verbs_plugin_qp_ex_record(struct ibv_qp *qp)
{
	struct qp_ex_entry *e = malloc(sizeof(*e)), **bucket;

	if (!e)
		return ENOMEM;
	e->qp = qp;
	pthread_mutex_lock(&qp_ex_lock);
	bucket = bucket_of(qp);
	e->next = *bucket;
	*bucket = e;
	pthread_mutex_unlock(&qp_ex_lock);
	return 0;
}

void verbs_plugin_qp_ex_forget(struct ibv_qp *qp)
{
	struct qp_ex_entry *gone = NULL;

	pthread_mutex_lock(&qp_ex_lock);
	for (struct qp_ex_entry **pp = bucket_of(qp); *pp; pp = &(*pp)->next)
		if ((*pp)->qp == qp) {
			gone = *pp;
			*pp = gone->next;
			break;
		}
	pthread_mutex_unlock(&qp_ex_lock);
	free(gone);
}

bool verbs_plugin_qp_ex_recorded(struct ibv_qp *qp)
{
	bool found = false;

	pthread_mutex_lock(&qp_ex_lock);
	for (struct qp_ex_entry *e = *bucket_of(qp); e && !found; e = e->next)
		found = e->qp == qp;
	pthread_mutex_unlock(&qp_ex_lock);
	return found;
}
