/* SPDX-License-Identifier: MIT */
/*
 * Device discovery on a fake sysfs tree and /dev directory, provider
 * matching, device lifetimes across rescans, and the argument checks of
 * the verbs that come before any kernel command.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "unit.h"

static void rm(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", unit_root, rel);
	ck_assert_int_eq(unlink(path), 0);
}

/* ------------------------------------------------------------------ */
/* Providers for the fake devices: contexts without a kernel           */

/* What verbs_open_device() handed the last alloc_context. */
static void *last_private_data;
/* Whether the fake contexts come with an event fd. */
static bool with_async_fd;

static struct verbs_context *fake_alloc(struct verbs_device *dev, int cmd_fd,
					void *private_data)
{
	last_private_data = private_data;
	return unit_bare_context(dev, cmd_fd, with_async_fd);
}

static const char *const fake_names[] = { "fake*", NULL };
static const struct verbs_provider by_name = {
	.name = "by-name", .ibdev_patterns = fake_names, .min_abi = 1, .max_abi = 1,
	.alloc_context = fake_alloc, .free_context = unit_bare_context_free,
};

static const char *const fake_aliases[] = { "pci:v000015B3d*", NULL };
static const struct verbs_provider by_alias = {
	.name = "by-alias", .modalias_patterns = fake_aliases, .min_abi = 1, .max_abi = 1,
	.alloc_context = fake_alloc, .free_context = unit_bare_context_free,
};

static const struct verbs_provider by_id = {
	.name = "by-id", .driver_id = RDMA_DRIVER_EFA, .min_abi = 0, .max_abi = 5,
	.alloc_context = fake_alloc, .free_context = unit_bare_context_free,
};

/* Discovery sees these instead of the built-in providers. */
static const struct verbs_provider *const fake_providers[] = { &by_name, &by_alias, &by_id, NULL };

static int no_netlink(struct verbs_list_node *found)
{
	(void)found;
	errno = EOPNOTSUPP;
	return -1;
}

/* A netlink answer naming a device only its driver id can match. */
static int efa_netlink(struct verbs_list_node *found)
{
	struct verbs_sysfs_dev *sysfs = calloc(1, sizeof(*sysfs));

	strcpy(sysfs->ibdev_name, "weird0");
	strcpy(sysfs->sysfs_name, "uverbs0");
	sysfs->ibdev_idx = 5;
	sysfs->driver_id = RDMA_DRIVER_EFA;
	sysfs->abi_ver = 1;
	sysfs->node_guid = 0x1122334455667788ULL;
	sysfs->flags = VSYSFS_READ_NODE_GUID;
	sysfs->node_type = IBV_NODE_UNSPECIFIED;
	verbs_list_add_tail(found, &sysfs->entry);
	return 1;
}

static void setup(void)
{
	verbs_providers = fake_providers;
	verbs_netlink_scanner = no_netlink;
	with_async_fd = true;
	unit_add_device("uverbs0", "fake0", "1\n", true);
	unit_add_device("uverbs1", "mod0", "1\n", true);
	unit_put("sys/class/infiniband/mod0/device/modalias", "pci:v000015B3d00001017sv000015B3sd00000006bc02sc00i00\n");
	unit_add_device("uverbs2", "other0", "1\n", true);	/* no provider */
	unit_add_device("uverbs3", "fake9", "7\n", true);		/* ABI out of range */
	unit_add_device("uverbs4", "fake1", "1\n", false);	/* no /dev node */
}

static void teardown(void)
{
	unsetenv("OPENVERBS_DISABLE_PROVIDERS");
	unit_tree_clear_devices();
	mkdir(verbs_dev_dir, 0755);
}

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp((*list)->name, name))
			return *list;
	return NULL;
}

static const struct verbs_sysfs_dev *record(struct ibv_device *device)
{
	return verbs_get_device(device)->sysfs;
}

static const struct verbs_provider *provider(struct ibv_device *device)
{
	return verbs_sysfs_provider(record(device));
}

/* ------------------------------------------------------------------ */
/* Listing                                                             */

START_TEST(lists_matched_devices_with_dev_nodes)
{
	int n = -1;
	struct ibv_device **list = ibv_get_device_list(&n);

	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(find(list, "fake0"));
	ck_assert_ptr_nonnull(find(list, "mod0"));
	ck_assert_ptr_null(list[2]);
	ck_assert_ptr_eq(provider(find(list, "fake0")), &by_name);
	ck_assert_ptr_eq(provider(find(list, "mod0")), &by_alias);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(device_fields_from_sysfs)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *d = find(list, "fake0");
	char path[PATH_MAX];

	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(ibv_get_device_name(d), "fake0");
	ck_assert_str_eq(d->dev_name, "uverbs0");
	snprintf(path, sizeof(path), "%s/sys/class/infiniband_verbs/uverbs0", unit_root);
	ck_assert_str_eq(d->dev_path, path);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/fake0", unit_root);
	ck_assert_str_eq(d->ibdev_path, path);
	ck_assert_int_eq(d->node_type, IBV_NODE_CA);
	ck_assert_int_eq(d->transport_type, IBV_TRANSPORT_IB);
	ck_assert_uint_eq(be64toh(ibv_get_device_guid(d)), 0x0002c9030010ab12ULL);
	ck_assert_int_eq(ibv_get_device_index(d), -1);
	ck_assert_int_eq(record(d)->abi_ver, 1);
	ibv_free_device_list(list);
}
END_TEST

/* The record of a device, as upstream's provider plugins read it. */
START_TEST(device_record_from_sysfs)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	const struct verbs_sysfs_dev *r = record(find(list, "fake0"));
	char path[PATH_MAX];

	ck_assert_str_eq(r->sysfs_name, "uverbs0");
	ck_assert_str_eq(r->ibdev_name, "fake0");
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/fake0", unit_root);
	ck_assert_str_eq(r->ibdev_path, path);
	ck_assert_uint_eq(r->sysfs_cdev, makedev(1, 3));
	ck_assert_int_eq(r->node_type, IBV_NODE_CA);
	ck_assert_uint_eq(r->node_guid, 0x0002c9030010ab12ULL);
	ck_assert_uint_eq(r->driver_id, RDMA_DRIVER_UNKNOWN);
	ck_assert_int_eq(r->ibdev_idx, -1);
	ck_assert_uint_eq(r->num_ports, 0);
	ck_assert_uint_eq(r->abi_ver, 1);
	ck_assert_uint_eq(r->flags, VSYSFS_READ_NODE_GUID | VSYSFS_READ_MODALIAS);
	ck_assert_str_eq(r->modalias, "");
	ck_assert(r->time_created.tv_sec || r->time_created.tv_nsec);
	ck_assert_ptr_eq(r->provider_data, &by_name);
	ck_assert_ptr_null(verbs_get_device(find(list, "fake0"))->ops);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(disabled_providers_claim_nothing)
{
	struct ibv_device **list;
	int n;

	setenv("OPENVERBS_DISABLE_PROVIDERS", "rxe,by-name", 1);
	list = ibv_get_device_list(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_null(find(list, "fake0"));
	ck_assert_ptr_nonnull(find(list, "mod0"));
	ibv_free_device_list(list);
}
END_TEST

START_TEST(disable_list_syntax)
{
	setenv("OPENVERBS_DISABLE_PROVIDERS", "rxe:siw,,by-id", 1);
	ck_assert(verbs_provider_disabled("rxe"));
	ck_assert(verbs_provider_disabled("siw"));
	ck_assert(verbs_provider_disabled("by-id"));
	ck_assert(!verbs_provider_disabled("by"));
	ck_assert(!verbs_provider_disabled("rx"));
	setenv("OPENVERBS_DISABLE_PROVIDERS", "all", 1);
	ck_assert(verbs_provider_disabled("rxe"));
	ck_assert(verbs_provider_disabled("by-name"));
	setenv("OPENVERBS_DISABLE_PROVIDERS", "", 1);
	ck_assert(!verbs_provider_disabled("rxe"));
	unsetenv("OPENVERBS_DISABLE_PROVIDERS");
	ck_assert(!verbs_provider_disabled("rxe"));
}
END_TEST

START_TEST(netlink_driver_id_wins)
{
	struct ibv_device **list;
	struct ibv_device *d;
	int n;

	verbs_netlink_scanner = efa_netlink;
	list = ibv_get_device_list(&n);
	ck_assert_int_eq(n, 1);
	d = list[0];
	ck_assert_str_eq(d->name, "weird0");
	ck_assert_ptr_eq(provider(d), &by_id);
	ck_assert_int_eq(ibv_get_device_index(d), 5);
	ck_assert_uint_eq(be64toh(ibv_get_device_guid(d)), 0x1122334455667788ULL);
	ck_assert_int_eq(d->transport_type, IBV_TRANSPORT_UNSPECIFIED);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(no_rdma_in_the_kernel_is_enosys)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/sys/class/infiniband_verbs", unit_root);
	snprintf(to, sizeof(to), "%s/sys/class/gone", unit_root);
	ck_assert_int_eq(rename(from, to), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_get_device_list(NULL));
	ck_assert_int_eq(errno, ENOSYS);
	ck_assert_int_eq(rename(to, from), 0);
}
END_TEST

START_TEST(rescans_share_device_objects)
{
	struct ibv_device **a = ibv_get_device_list(NULL);
	struct ibv_device **b = ibv_get_device_list(NULL);
	struct ibv_device *fake0 = find(a, "fake0"), **c;

	ck_assert_ptr_eq(find(b, "fake0"), fake0);
	ck_assert_ptr_eq(find(b, "mod0"), find(a, "mod0"));
	ibv_free_device_list(a);
	/* Unplugged: gone from new lists, still valid in old ones. */
	rm("dev/uverbs0");
	c = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(c, "fake0"));
	ck_assert_ptr_eq(find(c, "mod0"), find(b, "mod0"));
	ck_assert_str_eq(fake0->name, "fake0");
	ibv_free_device_list(b);
	ibv_free_device_list(c);
}
END_TEST

START_TEST(rescan_does_not_reread_modalias)
{
	struct ibv_device **list;
	struct ibv_device *mod5;

	unit_add_device("uverbs5", "mod5", "1\n", true);
	unit_put("sys/class/infiniband/mod5/device/modalias", "pci:v000015B3d00001017\n");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "mod5"));
	/* No list holds it now: only the cache keeps it. */
	ibv_free_device_list(list);
	/* A modalias no provider wants: a re-read would drop the device. */
	unit_put("sys/class/infiniband/mod5/device/modalias", "pci:v00008086d00001572\n");
	list = ibv_get_device_list(NULL);
	mod5 = find(list, "mod5");
	ck_assert_ptr_nonnull(mod5);
	ck_assert_str_eq(record(mod5)->modalias, "pci:v000015B3d00001017");
	ibv_free_device_list(list);
}
END_TEST

START_TEST(reappearing_device_is_a_new_object)
{
	struct ibv_device **a = ibv_get_device_list(NULL), **b, **c;
	struct ibv_device *fake0 = find(a, "fake0");

	ck_assert_ptr_nonnull(fake0);
	/* Re-created with another char device number. */
	rm("dev/uverbs0");
	b = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(b, "fake0"));
	unit_put("sys/class/infiniband_verbs/uverbs0/dev", "231:200\n");
	unit_put("dev/uverbs0", "");
	c = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(c, "fake0"));
	ck_assert_ptr_ne(find(c, "fake0"), fake0);
	ck_assert_uint_eq(record(find(c, "fake0"))->sysfs_cdev, makedev(231, 200));
	/* The old object is still the old device. */
	ck_assert_str_eq(fake0->name, "fake0");
	ck_assert_uint_eq(record(fake0)->sysfs_cdev, makedev(1, 3));
	ibv_free_device_list(a);
	ibv_free_device_list(b);
	ibv_free_device_list(c);
}
END_TEST

START_TEST(changed_identity_is_a_new_object)
{
	struct ibv_device **a = ibv_get_device_list(NULL), **b;
	struct ibv_device *fake0 = find(a, "fake0");

	unit_put("sys/class/infiniband_verbs/uverbs0/dev", "231:201\n");
	b = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(b, "fake0"));
	ck_assert_ptr_ne(find(b, "fake0"), fake0);
	ibv_free_device_list(b);
	ck_assert_str_eq(fake0->name, "fake0");
	ibv_free_device_list(a);
}
END_TEST

START_TEST(unmatched_device_is_not_probed_again)
{
	struct ibv_device **list;

	unit_add_device("uverbs6", "plain0", "1\n", true);
	unit_put("sys/class/infiniband/plain0/device/modalias", "pci:v00008086d00001572\n");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "plain0"));
	ibv_free_device_list(list);
	/* A provider would now match, but the device was already judged. */
	unit_put("sys/class/infiniband/plain0/device/modalias", "pci:v000015B3d00001017\n");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "plain0"));
	ibv_free_device_list(list);
	/* Re-created, it is probed afresh. */
	unit_put("sys/class/infiniband_verbs/uverbs6/dev", "231:206\n");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "plain0"));
	ck_assert_ptr_eq(provider(find(list, "plain0")), &by_alias);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(cached_devices_need_no_chardev_question)
{
	struct verbs_sysfs_dev fd = { .ibdev_name = "weird0", .ibdev_idx = 5 };
	struct ibv_device **list;

	/* Only what the cache holds can be answered. */
	ibv_free_device_list(ibv_get_device_list(NULL));
	ck_assert(!verbs_cached_chardev(&fd));
	verbs_netlink_scanner = efa_netlink;
	list = ibv_get_device_list(NULL);
	ck_assert(verbs_cached_chardev(&fd));
	ck_assert_str_eq(fd.sysfs_name, "uverbs0");
	ck_assert_uint_eq(fd.abi_ver, 1);
	ck_assert_uint_eq(fd.driver_id, RDMA_DRIVER_EFA);
	/* Another index is another device, even under the same name. */
	memset(&fd, 0, sizeof(fd));
	strcpy(fd.ibdev_name, "weird0");
	fd.ibdev_idx = 6;
	ck_assert(!verbs_cached_chardev(&fd));
	ibv_free_device_list(list);
	/* A scan without it drops it from the cache. */
	verbs_netlink_scanner = no_netlink;
	ibv_free_device_list(ibv_get_device_list(NULL));
	fd.ibdev_idx = 5;
	ck_assert(!verbs_cached_chardev(&fd));
}
END_TEST

START_TEST(context_keeps_its_device)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = ibv_open_device(find(list, "fake0"));

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_ge(ctx->cmd_fd, 0);
	ck_assert_ptr_eq(ctx->abi_compat, __VERBS_ABI_IS_EXTENDED);
	ck_assert_uint_eq(verbs_get_ctx(ctx)->sz, sizeof(struct verbs_context));
	ibv_free_device_list(list);
	rm("dev/uverbs0");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "fake0"));
	ck_assert_str_eq(ctx->device->name, "fake0");
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(open_hands_private_data_to_the_provider)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	int token;

	ctx = verbs_open_device(find(list, "fake0"), &token);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_ptr_eq(last_private_data, &token);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ctx = ibv_open_device(find(list, "fake0"));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_ptr_null(last_private_data);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}
END_TEST

/* A context the kernel gave no event fd gets one from the core (FACTS
 * 21d); the fake /dev node refuses, which fails the whole open and
 * releases the context, its fd and its device reference. */
START_TEST(open_without_event_fd_fails)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct verbs_device *dev = verbs_get_device(find(list, "fake0"));
	int refs = atomic_load(&dev->refcount), next_fd;

	with_async_fd = false;
	next_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(next_fd, 0);
	close(next_fd);
	errno = 0;
	ck_assert_ptr_null(ibv_open_device(&dev->device));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(atomic_load(&dev->refcount), refs);
	/* No fd was kept. */
	ck_assert_int_eq(open("/dev/null", O_RDONLY | O_CLOEXEC), next_fd);
	close(next_fd);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(open_without_dev_node_is_enoent)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	rm("dev/uverbs0");
	errno = 0;
	ck_assert_ptr_null(ibv_open_device(find(list, "fake0")));
	ck_assert_int_eq(errno, ENOENT);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(import_needs_a_char_device)
{
	int fd;

	errno = 0;
	ck_assert_ptr_null(ibv_import_device(-1));
	ck_assert_int_eq(errno, EBADF);
	/* A regular file, such as a sysfs attribute. */
	fd = open(unit_at("sys/class/infiniband_verbs/uverbs1/ibdev"), O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_null(ibv_import_device(fd));
	ck_assert_int_eq(errno, EINVAL);
	/* Refused imports leave the fd to the caller. */
	ck_assert_int_eq(close(fd), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Queries answered by sysfs, argument checks                          */

static struct ibv_context *open_fake0(struct ibv_device ***list)
{
	struct ibv_context *ctx;

	*list = ibv_get_device_list(NULL);
	ctx = ibv_open_device(find(*list, "fake0"));
	ck_assert_ptr_nonnull(ctx);
	return ctx;
}

static void close_fake0(struct ibv_context *ctx, struct ibv_device **list)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}

START_TEST(gids_from_sysfs)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	enum ibv_gid_type_sysfs type;
	struct ibv_gid_entry e;
	union ibv_gid gid;

	unit_put("sys/class/infiniband/fake0/ports/1/gids/0", "fe80:0000:0000:0000:0002:c903:0010:ab12\n");
	unit_put("sys/class/infiniband/fake0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	unit_put("sys/class/infiniband/fake0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	ctx = open_fake0(&list);
	/* The fake /dev node refuses the ioctl GID query: sysfs answers. */
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &gid), 0);
	ck_assert_uint_eq(gid.raw[0], 0xfe);
	ck_assert_uint_eq(gid.raw[15], 0x12);
	ck_assert_int_eq(ibv_query_gid_type(ctx, 1, 0, &type), 0);
	ck_assert_int_eq(type, IBV_GID_TYPE_SYSFS_ROCE_V2);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	ck_assert_int_eq(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	ck_assert_uint_eq(e.gid_index, 0);
	ck_assert_uint_eq(e.port_num, 1);
	ck_assert_int_eq(memcmp(&e.gid, &gid, sizeof(gid)), 0);
	/* An empty slot: a zero GID, but no entry. */
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 1, &gid), 0);
	ck_assert_uint_eq(gid.raw[0], 0);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 1, &e, 0), ENODATA);
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 7, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	close_fake0(ctx, list);
}
END_TEST

START_TEST(pkeys_from_sysfs)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	__be16 pkey;

	unit_put("sys/class/infiniband/fake0/ports/1/pkeys/0", "0xffff\n");
	unit_put("sys/class/infiniband/fake0/ports/1/pkeys/1", "0x8001\n");
	ctx = open_fake0(&list);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 1, &pkey), 0);
	ck_assert_uint_eq(be16toh(pkey), 0x8001);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), 1);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x7fff)), -1);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 2, &pkey), -1);
	ck_assert_int_eq(errno, ENOENT);
	close_fake0(ctx, list);
}
END_TEST

START_TEST(bad_arguments)
{
	struct ibv_device **list;
	struct ibv_context *ctx = open_fake0(&list);
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 1, .comp_mask = 1 << 5 };
	struct ibv_srq_init_attr_ex srq_attr = { .comp_mask = IBV_SRQ_INIT_ATTR_RESERVED };
	struct ibv_device_attr_ex dev_attr;
	struct ibv_query_device_ex_input input = { .comp_mask = 1 };
	struct ibv_gid_entry e[2];
	union ibv_gid gid;

	ck_assert_int_eq(_ibv_query_gid_ex(ctx, 1, 0, e, 1, sizeof(e[0])), EINVAL);
	ck_assert_int_eq(_ibv_query_gid_ex(ctx, 1, 0, e, 0, sizeof(e[0]) - 1), EINVAL);
	ck_assert_int_eq(_ibv_query_gid_table(ctx, e, 2, 1, sizeof(e[0])), -EINVAL);
	ck_assert_int_eq(_ibv_query_gid_table(ctx, e, 2, 0, 8), -EINVAL);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, -1, &gid), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(verbs_cmd_query_device(ctx, &input, &dev_attr, sizeof(dev_attr), NULL, NULL),
			 EINVAL);
	/* Unknown extension bits of a CQ are unsupported, as upstream says. */
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &cq_attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(verbs_create_srq_ex(ctx, &srq_attr));
	ck_assert_int_eq(errno, EINVAL);
	close_fake0(ctx, list);
}
END_TEST

START_TEST(missing_provider_ops_are_eopnotsupp)
{
	struct ibv_device **list;
	struct ibv_context *ctx = open_fake0(&list);
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 1 };
	struct ibv_qp_init_attr qp_attr = { .qp_type = IBV_QPT_RC };
	struct ibv_srq_init_attr srq_attr = {};
	struct ibv_pd pd = { .context = ctx };
	struct ibv_ah_attr ah_attr = {};
	struct ibv_send_wr wr = {}, *bad_wr = NULL;
	struct ibv_wc wc;

	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 1, NULL, NULL, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &cq_attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(&pd, &qp_attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq(&pd, &srq_attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(&pd, &ah_attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* The inline data path never finds a NULL. */
	ck_assert_int_lt(ctx->ops.poll_cq(NULL, 1, &wc), 0);
	ck_assert_int_eq(ctx->ops.post_send(NULL, &wr, &bad_wr), EOPNOTSUPP);
	ck_assert_ptr_eq(bad_wr, &wr);
	ck_assert_ptr_nonnull(ctx->ops.req_notify_cq);
	/* Extended entries the inline verbs call through verbs_context. */
	ck_assert_ptr_nonnull(verbs_get_ctx_op(ctx, query_port));
	ck_assert_ptr_nonnull(verbs_get_ctx_op(ctx, create_qp_ex));
	ck_assert_ptr_null(verbs_get_ctx_op(ctx, open_xrcd));
	close_fake0(ctx, list);
}
END_TEST

START_TEST(busy_channel_and_bad_rereg)
{
	struct ibv_device **list;
	struct ibv_context *ctx = open_fake0(&list);
	struct ibv_comp_channel channel = { .context = ctx, .fd = -1, .refcnt = 1 };
	struct verbs_mr mr = { .ibv_mr = { .context = ctx } };

	ck_assert_int_eq(ibv_destroy_comp_channel(&channel), EBUSY);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(&mr.ibv_mr, 0, NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_rereg_mr(&mr.ibv_mr, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(ibv_rereg_mr(&mr.ibv_mr, 1 << 7, NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(ibv_rereg_mr(&mr.ibv_mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0),
			 IBV_REREG_MR_ERR_INPUT);
	close_fake0(ctx, list);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("discovery");
	TCase *list = tcase_create("list"), *verbs = tcase_create("verbs");
	int status;

	if (!unit_tree_make("/tmp/ov-disc-XXXXXX"))
		return EXIT_FAILURE;
	unit_tree_serve_devices();

	tcase_add_checked_fixture(list, setup, teardown);
	tcase_add_checked_fixture(verbs, setup, teardown);
	tcase_add_test(list, lists_matched_devices_with_dev_nodes);
	tcase_add_test(list, device_fields_from_sysfs);
	tcase_add_test(list, device_record_from_sysfs);
	tcase_add_test(list, disabled_providers_claim_nothing);
	tcase_add_test(list, disable_list_syntax);
	tcase_add_test(list, netlink_driver_id_wins);
	tcase_add_test(list, no_rdma_in_the_kernel_is_enosys);
	tcase_add_test(list, rescans_share_device_objects);
	tcase_add_test(list, rescan_does_not_reread_modalias);
	tcase_add_test(list, reappearing_device_is_a_new_object);
	tcase_add_test(list, changed_identity_is_a_new_object);
	tcase_add_test(list, unmatched_device_is_not_probed_again);
	tcase_add_test(list, cached_devices_need_no_chardev_question);
	tcase_add_test(list, context_keeps_its_device);
	tcase_add_test(list, open_hands_private_data_to_the_provider);
	tcase_add_test(list, open_without_event_fd_fails);
	tcase_add_test(list, open_without_dev_node_is_enoent);
	tcase_add_test(list, import_needs_a_char_device);
	tcase_add_test(verbs, gids_from_sysfs);
	tcase_add_test(verbs, pkeys_from_sysfs);
	tcase_add_test(verbs, bad_arguments);
	tcase_add_test(verbs, missing_provider_ops_are_eopnotsupp);
	tcase_add_test(verbs, busy_channel_and_bad_rereg);
	suite_add_tcase(s, list);
	suite_add_tcase(s, verbs);
	status = unit_run(s, CK_FORK_GETENV);
	if (!unit_tree_remove())
		status = EXIT_FAILURE;
	return status;
}
