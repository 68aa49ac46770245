/* SPDX-License-Identifier: MIT */
/*
 * The plugins' registrations.  Plugins register from their ELF
 * constructors: inside dlopen(), or at process start when an application
 * links libmlx5.so.1 or libefa.so.1 directly, before any of our code ran.
 * So everything here is statically initialised (FACTS 10).
 */
#include <pthread.h>
#include <stdlib.h>

#include "plugins.h"

struct registration {
	const struct verbs_device_ops *ops;	/* the plugin's own, not a copy (FACTS 12) */
	struct registration *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registration *registered;
static struct registration **registered_tail = &registered;

void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	struct registration *r = malloc(sizeof(*r));

	if (!r) {
		verbs_warn("no memory to register provider %s\n", ops->name);
		return;
	}
	r->ops = ops;
	r->next = NULL;
	pthread_mutex_lock(&registry_lock);
	*registered_tail = r;
	registered_tail = &r->next;
	pthread_mutex_unlock(&registry_lock);
}

/* Entries are only ever appended, so a node once read stays valid and the
 * lock is needed only to read each link. */
static struct registration *next_of(struct registration **link)
{
	struct registration *r;

	pthread_mutex_lock(&registry_lock);
	r = *link;
	pthread_mutex_unlock(&registry_lock);
	return r;
}

void *verbs_plugin_each(void *(*fn)(const struct verbs_device_ops *ops, void *arg), void *arg)
{
	void *hit = NULL;

	for (struct registration *r = next_of(&registered); r && !hit; r = next_of(&r->next))
		hit = fn(r->ops, arg);
	return hit;
}
