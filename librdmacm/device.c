/* SPDX-License-Identifier: MIT */
/*
 * The devices ids land on: one entry per node GUID that libibverbs
 * listed, kept for the process's life (ids point at them), with the
 * context opened when first needed and shared.  The table is filled on
 * first need and rescanned when the kernel names a GUID it lacks.
 */
#include <stdlib.h>

#include "internal.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cma_device **table;
static int table_len;
/* The list the entries' dev pointers without a context come from: freed
 * when a rescan replaces it (an open context keeps its own device). */
static struct ibv_device **current_list;

static struct cma_device *find_device(uint64_t guid)
{
	for (int i = 0; i < table_len; i++)
		if (table[i]->guid == guid && !table[i]->removed)
			return table[i];
	return NULL;
}

static int add_device(struct ibv_device *dev, uint64_t guid)
{
	struct cma_device **grown, *entry;

	entry = calloc(1, sizeof(*entry));
	if (!entry)
		return ENOMEM;
	grown = realloc(table, (table_len + 1) * sizeof(*table));
	if (!grown) {
		free(entry);
		return ENOMEM;
	}
	entry->dev = dev;
	entry->guid = guid;
	table = grown;
	table[table_len++] = entry;
	return 0;
}

/* The entry a listed device belongs to: a live one, or one without a
 * context (a slot that can take the device again).  A removed device
 * whose context still waits for its last id is not the listed one. */
static struct cma_device *entry_for(uint64_t guid)
{
	for (int i = 0; i < table_len; i++)
		if (table[i]->guid == guid && !(table[i]->removed && table[i]->verbs))
			return table[i];
	return NULL;
}

/* Holding table_lock. */
static int rescan(void)
{
	struct ibv_device **list;
	struct cma_device *entry;
	int n, i, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? errno : ENODEV;
	/* Entries without a context point into the list freed below: only
	 * those this scan lists again come back. */
	for (i = 0; i < table_len; i++)
		if (!table[i]->verbs)
			table[i]->removed = true;
	for (i = 0; i < n && !ret; i++) {
		uint64_t guid = ibv_get_device_guid(list[i]);

		entry = entry_for(guid);
		if (!entry) {
			ret = add_device(list[i], guid);
		} else if (!entry->verbs) {
			entry->dev = list[i];
			entry->removed = false;
		}
	}
	/* Upstream's libibverbs does not take NULL here. */
	if (current_list)
		ibv_free_device_list(current_list);
	current_list = list;
	return ret;
}

/* Holding table_lock. */
static int open_device(struct cma_device *entry)
{
	struct ibv_device_attr attr;
	int ret;

	if (entry->verbs)
		return 0;
	entry->verbs = ibv_open_device(entry->dev);
	if (!entry->verbs)
		return errno ? errno : ENODEV;
	ret = ibv_query_device(entry->verbs, &attr);
	if (ret) {
		ibv_close_device(entry->verbs);
		entry->verbs = NULL;
		return ret;
	}
	entry->max_initiator_depth = attr.max_qp_init_rd_atom < 0xff ? attr.max_qp_init_rd_atom : 0xff;
	entry->max_responder_resources = attr.max_qp_rd_atom < 0xff ? attr.max_qp_rd_atom : 0xff;
	return 0;
}

/* Holding table_lock. */
static int get_pd(struct cma_device *entry)
{
	if (!entry->pd)
		entry->pd = ibv_alloc_pd(entry->verbs);
	if (!entry->pd)
		return errno ? errno : ENOMEM;
	entry->pd_refs++;
	return 0;
}

static void put_pd(struct cma_device *entry)
{
	if (!--entry->pd_refs && !ibv_dealloc_pd(entry->pd))
		entry->pd = NULL;
}

/* Holding table_lock: a removed device's context goes with its last id. */
static void put_device(struct cma_device *entry)
{
	put_pd(entry);
	if (--entry->refs || !entry->removed || !entry->verbs)
		return;
	if (entry->xrcd && !ibv_close_xrcd(entry->xrcd))
		entry->xrcd = NULL;
	if (!entry->pd && !entry->xrcd && !ibv_close_device(entry->verbs))
		entry->verbs = NULL;
}

int cma_attach_device(struct cma_id *id, uint64_t guid)
{
	struct cma_device *entry;
	int ret = 0;

	pthread_mutex_lock(&table_lock);
	if (id->dev && id->dev->guid == guid && !id->dev->removed)
		goto out;
	entry = find_device(guid);
	if (!entry) {
		ret = rescan();
		entry = ret ? NULL : find_device(guid);
	}
	if (!entry) {
		ret = ret ? ret : ENODEV;
		goto out;
	}
	ret = open_device(entry);
	if (ret)
		goto out;
	ret = get_pd(entry);
	if (ret)
		goto out;
	entry->refs++;
	if (id->dev)
		put_device(id->dev);
	id->dev = entry;
	id->id.verbs = entry->verbs;
	/* Upstream gives every attached id the device's default PD. */
	id->id.pd = entry->pd;
out:
	pthread_mutex_unlock(&table_lock);
	return ret;
}

void cma_detach_device(struct cma_id *id)
{
	if (!id->dev)
		return;
	pthread_mutex_lock(&table_lock);
	put_device(id->dev);
	pthread_mutex_unlock(&table_lock);
	id->dev = NULL;
}

void cma_device_removed(struct cma_device *dev)
{
	pthread_mutex_lock(&table_lock);
	dev->removed = true;
	pthread_mutex_unlock(&table_lock);
}

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list = NULL;
	int n = 0, ret;

	pthread_mutex_lock(&table_lock);
	ret = rescan();
	if (!ret && !table_len)
		ret = ENODEV;
	if (!ret)
		list = calloc(table_len + 1, sizeof(*list));
	if (!ret && !list)
		ret = ENOMEM;
	/* A device that cannot be opened is left out; the others still count. */
	for (int i = 0; list && i < table_len; i++)
		if (!table[i]->removed && !open_device(table[i]))
			list[n++] = table[i]->verbs;
	pthread_mutex_unlock(&table_lock);
	if (ret)
		return cma_fail_null(ret);
	if (num_devices)
		*num_devices = n;
	return list;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
