/* SPDX-License-Identifier: MIT */
/*
 * Upstream's provider plugins on our core (libverbs/compat/plugins): the
 * loader's config files, names and set-uid rule, registration, matching,
 * verbs_set_ops, and a real plugin (fake_plugin.c) loaded and claiming a
 * device of a fake sysfs tree.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/plugins/plugins.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* Loader                                                              */

#if PLUGIN_LOADER
struct names {
	char text[256];
	int n;
};

static void collect(const char *name, void *arg)
{
	struct names *names = arg;

	strcat(names->text, names->n++ ? " " : "");
	strcat(names->text, name);
}

START_TEST(config_lines)
{
	struct names names = { "", 0 };

	unit_put("conf/a.driver",
	    "# comment\n"
	    "\n"
	    "   \t\n"
	    "driver rxe\n"
	    "  \tdriver\t siw   \n"
	    "   # indented comment\n"
	    "provider mlx5\n"
	    "driver\n"
	    "driver efa trailing words\n"
	    "driver last");
	ck_assert_int_eq(verbs_plugin_read_config(unit_at("conf/a.driver"), collect, &names), 0);
	ck_assert_str_eq(names.text, "rxe siw efa last");
}
END_TEST

START_TEST(unreadable_config_is_an_error_only)
{
	struct names names = { "", 0 };

	ck_assert_int_eq(verbs_plugin_read_config(unit_at("conf/missing"), collect, &names), ENOENT);
	ck_assert_int_eq(names.n, 0);
}
END_TEST

START_TEST(names_to_paths)
{
	char paths[2][PATH_MAX];

	verbs_plugin_dir = "/opt/verbs";
	ck_assert_int_eq(verbs_plugin_candidates("rxe", paths), 2);
	ck_assert_str_eq(paths[0], "/opt/verbs/librxe-rdmav34.so");
	ck_assert_str_eq(paths[1], "librxe-rdmav34.so");
	/* A path prefix, and nothing else (FACTS 9). */
	ck_assert_int_eq(verbs_plugin_candidates("/x/lib/libibverbs/siw", paths), 1);
	ck_assert_str_eq(paths[0], "/x/lib/libibverbs/siw-rdmav34.so");
}
END_TEST

START_TEST(setuid_ignores_the_environment)
{
	ck_assert(verbs_plugin_env_trusted(1000, 1000));
	ck_assert(verbs_plugin_env_trusted(0, 0));
	ck_assert(!verbs_plugin_env_trusted(1000, 0));
	ck_assert(!verbs_plugin_env_trusted(0, 1000));
}
END_TEST
#endif

/* ------------------------------------------------------------------ */
/* Registration                                                        */

static void *count_and_find(const struct verbs_device_ops *ops, void *arg)
{
	const char **want = arg;

	return !strcmp(ops->name, *want) ? (void *)ops : NULL;
}

struct seen {
	char text[256];
	const struct verbs_device_ops *last;
};

static void *note(const struct verbs_device_ops *ops, void *arg)
{
	struct seen *seen = arg;

	strcat(seen->text, ops->name);
	strcat(seen->text, " ");
	seen->last = ops;
	return NULL;
}

START_TEST(registration_keeps_order_and_pointers)
{
	static const struct verbs_device_ops a = { .name = "a" }, b = { .name = "b" },
		c = { .name = "c" };
	struct seen seen = { "", NULL };
	const char *want = "b";

	verbs_register_driver_34(&a);
	verbs_register_driver_34(&b);
	verbs_register_driver_34(&c);
	ck_assert_ptr_null(verbs_plugin_each(note, &seen));
	ck_assert_str_eq(seen.text, "a b c ");
	ck_assert_ptr_eq(seen.last, &c);
	ck_assert_ptr_eq(verbs_plugin_each(count_and_find, &want), &b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Matching (FACTS 16-18)                                              */

static struct verbs_sysfs_dev *new_sysfs_dev(const char *ibdev, uint32_t driver_id, uint32_t abi)
{
	struct verbs_sysfs_dev *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	snprintf(d->ibdev_name, sizeof(d->ibdev_name), "%s", ibdev);
	snprintf(d->ibdev_path, sizeof(d->ibdev_path), "%s/sys/class/infiniband/%s", unit_root, ibdev);
	snprintf(d->sysfs_name, sizeof(d->sysfs_name), "uverbs9");
	d->driver_id = driver_id;
	d->abi_ver = abi;
	d->ibdev_idx = -1;
	return d;
}

static const struct verbs_match_ent rxe_like[] = {
	{ .u.driver_id = 14, .kind = VERBS_MATCH_DRIVER_ID },
	{ .u.modalias = "rdma_device:*Nrxe*", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_match_ent pci_like[] = {
	{ .u.driver_id = 1, .kind = VERBS_MATCH_DRIVER_ID },
	{ .vendor = 0x15b3, .device = 0x1013, .kind = VERBS_MATCH_PCI },
	{ .vendor = 0x15b3, .device = 0x101b, .kind = VERBS_MATCH_PCI },
	{ .u.modalias = "vmbus:*", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops rxe_ops = {
	.name = "rxe", .match_min_abi_version = 1, .match_max_abi_version = 2, .match_table = rxe_like,
};
static const struct verbs_device_ops pci_ops = {
	.name = "pci", .match_min_abi_version = 1, .match_max_abi_version = 1, .match_table = pci_like,
};

START_TEST(match_by_driver_id_then_name)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("weird0", 14, 1);

	ck_assert(verbs_plugin_matches(&rxe_ops, d));
	ck_assert_ptr_eq(d->match, &rxe_like[0]);
	free(d);
	d = new_sysfs_dev("rxe0", 0, 2);
	ck_assert(verbs_plugin_matches(&rxe_ops, d));
	ck_assert_ptr_eq(d->match, &rxe_like[1]);
	free(d);
	/* Another driver's id: the name still matches. */
	d = new_sysfs_dev("rxe1", 18, 1);
	ck_assert(verbs_plugin_matches(&rxe_ops, d));
	ck_assert_ptr_eq(d->match, &rxe_like[1]);
	free(d);
	d = new_sysfs_dev("siw0", 18, 1);
	ck_assert(!verbs_plugin_matches(&rxe_ops, d));
	ck_assert_ptr_null(d->match);
	free(d);
}
END_TEST

START_TEST(match_by_pci_modalias_upper_case)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("mlx5_0", 0, 1);

	unit_put("sys/class/infiniband/mlx5_0/device/modalias",
	    "pci:v000015B3d0000101Bsv000015B3sd00000007bc02sc00i00\n");
	ck_assert(verbs_plugin_matches(&pci_ops, d));
	ck_assert_ptr_eq(d->match, &pci_like[2]);
	ck_assert(d->flags & VSYSFS_READ_MODALIAS);
	free(d);
	/* Lower-case hex is not how the kernel writes it: no match. */
	d = new_sysfs_dev("mlx5_1", 0, 1);
	unit_put("sys/class/infiniband/mlx5_1/device/modalias",
	    "pci:v000015b3d0000101bsv000015B3sd00000007bc02sc00i00\n");
	ck_assert(!verbs_plugin_matches(&pci_ops, d));
	free(d);
	d = new_sysfs_dev("mana_0", 0, 1);
	unit_put("sys/class/infiniband/mana_0/device/modalias", "vmbus:0123\n");
	ck_assert(verbs_plugin_matches(&pci_ops, d));
	ck_assert_ptr_eq(d->match, &pci_like[3]);
	free(d);
	/* No modalias file: no match, and not read again. */
	d = new_sysfs_dev("none0", 0, 1);
	ck_assert(!verbs_plugin_matches(&pci_ops, d));
	ck_assert(d->flags & VSYSFS_READ_MODALIAS);
	ck_assert_str_eq(d->modalias, "");
	free(d);
}
END_TEST

START_TEST(modalias_read_only_when_needed)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("rxe0", 0, 1);

	ck_assert(verbs_plugin_matches(&rxe_ops, d));
	ck_assert(!(d->flags & VSYSFS_READ_MODALIAS));
	free(d);
}
END_TEST

START_TEST(abi_range_is_checked_last)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("rxe0", 14, 3);

	ck_assert(!verbs_plugin_matches(&rxe_ops, d));
	/* The table did match. */
	ck_assert_ptr_eq(d->match, &rxe_like[0]);
	d->abi_ver = 0;
	ck_assert(!verbs_plugin_matches(&rxe_ops, d));
	d->abi_ver = 2;
	ck_assert(verbs_plugin_matches(&rxe_ops, d));
	free(d);
}
END_TEST

static bool said_yes(struct verbs_sysfs_dev *d)
{
	return !strcmp(d->ibdev_name, "yes0");
}

START_TEST(match_device_decides)
{
	static const struct verbs_device_ops by_callback = {
		.name = "cb", .match_min_abi_version = 1, .match_max_abi_version = 1,
		.match_table = rxe_like, .match_device = said_yes,
	};
	struct verbs_sysfs_dev *d = new_sysfs_dev("yes0", 0, 1);

	ck_assert(verbs_plugin_matches(&by_callback, d));
	ck_assert_ptr_null(d->match);
	free(d);
	/* The table hit alone is not enough. */
	d = new_sysfs_dev("rxe0", 0, 1);
	ck_assert(!verbs_plugin_matches(&by_callback, d));
	ck_assert_ptr_eq(d->match, &rxe_like[1]);
	free(d);
}
END_TEST

START_TEST(driver_id_in_table)
{
	ck_assert(verbs_plugin_has_driver_id(&rxe_ops, 14));
	ck_assert(!verbs_plugin_has_driver_id(&rxe_ops, 18));
	ck_assert(verbs_plugin_has_driver_id(&pci_ops, 1));
}
END_TEST

/* Devices whose claims the tests below count. */
struct test_device {
	const char *by;
	struct verbs_device vdev;
};

static int refusals;

static struct verbs_device *claim_as(struct verbs_sysfs_dev *d, const char *by)
{
	struct test_device *t = calloc(1, sizeof(*t));

	(void)d;
	t->by = by;
	return &t->vdev;
}

static struct verbs_device *alloc_by_name(struct verbs_sysfs_dev *d)
{
	return claim_as(d, "by-name");
}

static struct verbs_device *alloc_by_id(struct verbs_sysfs_dev *d)
{
	return claim_as(d, "by-id");
}

static struct verbs_device *alloc_refused(struct verbs_sysfs_dev *d)
{
	(void)d;
	refusals++;
	return NULL;
}

static const struct verbs_match_ent any_plug[] = {
	{ .u.modalias = "rdma_device:*Nplug*", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_match_ent id_18[] = {
	{ .u.driver_id = 18, .kind = VERBS_MATCH_DRIVER_ID },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops refuser = {
	.name = "refuser", .match_min_abi_version = 0, .match_max_abi_version = 9,
	.match_table = any_plug, .alloc_device = alloc_refused,
};
static const struct verbs_device_ops by_name = {
	.name = "by-name", .match_min_abi_version = 0, .match_max_abi_version = 9,
	.match_table = any_plug, .alloc_device = alloc_by_name,
};
static const struct verbs_device_ops by_id = {
	.name = "by-id", .match_min_abi_version = 0, .match_max_abi_version = 9,
	.match_table = id_18, .alloc_device = alloc_by_id,
};

static void no_loading(void)
{
	mkdir(unit_at("empty.d"), 0755);
#if PLUGIN_LOADER
	verbs_plugin_confdir = strdup(unit_at("empty.d"));
#endif
	unsetenv("RDMAV_DRIVERS");
	unsetenv("IBV_DRIVERS");
}

START_TEST(driver_id_owners_claim_first)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("plug0", 18, 1);
	struct verbs_device *vdev;

	no_loading();
	verbs_register_driver_34(&refuser);
	verbs_register_driver_34(&by_name);
	verbs_register_driver_34(&by_id);
	vdev = verbs_plugin_claim(d);
	ck_assert_ptr_nonnull(vdev);
	ck_assert_str_eq(container_of(vdev, struct test_device, vdev)->by, "by-id");
	ck_assert_ptr_eq(vdev->ops, &by_id);
	ck_assert_ptr_nonnull(d->provider_data);
	ck_assert_int_eq(refusals, 0);
	free(container_of(vdev, struct test_device, vdev));
	free(d);
	/* Without a driver id: registration order, past a refusal. */
	d = new_sysfs_dev("plug1", 0, 1);
	vdev = verbs_plugin_claim(d);
	ck_assert_ptr_nonnull(vdev);
	ck_assert_str_eq(container_of(vdev, struct test_device, vdev)->by, "by-name");
	ck_assert_ptr_eq(vdev->ops, &by_name);
	ck_assert_int_eq(refusals, 1);
	free(container_of(vdev, struct test_device, vdev));
	free(d);
	d = new_sysfs_dev("other0", 0, 1);
	errno = 0;
	ck_assert_ptr_null(verbs_plugin_claim(d));
	ck_assert_int_eq(errno, ENODEV);
	ck_assert_ptr_null(d->provider_data);
	free(d);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Contexts and verbs_set_ops (FACTS 22-23, 33-34)                     */

/* The public slot of each op (ops-map.txt), from the start of struct
 * verbs_context (whose layout the abi suite checks, on x86_64 and i686). */
#define PUBLIC(member) ((int)offsetof(struct verbs_context, member))
enum { NO_PUBLIC = -1 };	/* private only */
static const struct { int idx, public; } public_slots[] = {
	{ 0, PUBLIC(advise_mr) },	/* advise_mr: 8 on x86_64 */
	{ 1, PUBLIC(alloc_dm) },	/* alloc_dm: 64 on x86_64 */
	{ 2, PUBLIC(context.ops.alloc_mw) },	/* alloc_mw: 384 on x86_64 */
	{ 3, PUBLIC(alloc_null_mr) },	/* alloc_null_mr: 16 on x86_64 */
	{ 4, PUBLIC(alloc_parent_domain) },	/* alloc_parent_domain: 112 on x86_64 */
	{ 5, PUBLIC(context.ops._compat_alloc_pd) },	/* alloc_pd: 344 on x86_64 */
	{ 6, PUBLIC(alloc_td) },	/* alloc_td: 128 on x86_64 */
	{ 7, PUBLIC(context.ops._compat_async_event) },	/* async_event: 576 on x86_64 */
	{ 8, PUBLIC(attach_counters_point_flow) },	/* attach_counters_point_flow: 32 on x86_64 */
	{ 9, PUBLIC(context.ops._compat_attach_mcast) },	/* attach_mcast: 560 on x86_64 */
	{ 10, PUBLIC(context.ops.bind_mw) },	/* bind_mw: 392 on x86_64 */
	{ 11, PUBLIC(close_xrcd) },	/* close_xrcd: 296 on x86_64 */
	{ 12, PUBLIC(context.ops._compat_cq_event) },	/* cq_event: 432 on x86_64 */
	{ 13, PUBLIC(context.ops._compat_create_ah) },	/* create_ah: 544 on x86_64 */
	{ 14, PUBLIC(create_counters) },	/* create_counters: 40 on x86_64 */
	{ 15, PUBLIC(context.ops._compat_create_cq) },	/* create_cq: 408 on x86_64 */
	{ 16, NO_PUBLIC },	/* create_cq_ex */
	{ 17, PUBLIC(ibv_create_flow) },	/* create_flow: 240 on x86_64 */
	{ 18, PUBLIC(create_flow_action_esp) },	/* create_flow_action_esp: 96 on x86_64 */
	{ 19, PUBLIC(context.ops._compat_create_qp) },	/* create_qp: 496 on x86_64 */
	{ 20, PUBLIC(create_qp_ex) },	/* create_qp_ex: 264 on x86_64 */
	{ 21, PUBLIC(create_rwq_ind_table) },	/* create_rwq_ind_table: 160 on x86_64 */
	{ 22, PUBLIC(context.ops._compat_create_srq) },	/* create_srq: 456 on x86_64 */
	{ 23, PUBLIC(create_srq_ex) },	/* create_srq_ex: 280 on x86_64 */
	{ 24, PUBLIC(create_wq) },	/* create_wq: 184 on x86_64 */
	{ 25, PUBLIC(context.ops.dealloc_mw) },	/* dealloc_mw: 400 on x86_64 */
	{ 26, PUBLIC(context.ops._compat_dealloc_pd) },	/* dealloc_pd: 352 on x86_64 */
	{ 27, PUBLIC(dealloc_td) },	/* dealloc_td: 120 on x86_64 */
	{ 28, PUBLIC(context.ops._compat_dereg_mr) },	/* dereg_mr: 376 on x86_64 */
	{ 29, PUBLIC(context.ops._compat_destroy_ah) },	/* destroy_ah: 552 on x86_64 */
	{ 30, PUBLIC(destroy_counters) },	/* destroy_counters: 48 on x86_64 */
	{ 31, PUBLIC(context.ops._compat_destroy_cq) },	/* destroy_cq: 448 on x86_64 */
	{ 32, PUBLIC(ibv_destroy_flow) },	/* destroy_flow: 224 on x86_64 */
	{ 33, PUBLIC(destroy_flow_action) },	/* destroy_flow_action: 88 on x86_64 */
	{ 34, PUBLIC(context.ops._compat_destroy_qp) },	/* destroy_qp: 520 on x86_64 */
	{ 35, PUBLIC(destroy_rwq_ind_table) },	/* destroy_rwq_ind_table: 152 on x86_64 */
	{ 36, PUBLIC(context.ops._compat_destroy_srq) },	/* destroy_srq: 480 on x86_64 */
	{ 37, PUBLIC(destroy_wq) },	/* destroy_wq: 168 on x86_64 */
	{ 38, PUBLIC(context.ops._compat_detach_mcast) },	/* detach_mcast: 568 on x86_64 */
	{ 39, NO_PUBLIC },	/* free_context */
	{ 40, PUBLIC(free_dm) },	/* free_dm: 72 on x86_64 */
	{ 41, PUBLIC(get_srq_num) },	/* get_srq_num: 272 on x86_64 */
	{ 42, NO_PUBLIC },	/* import_dm */
	{ 43, NO_PUBLIC },	/* import_mr */
	{ 44, NO_PUBLIC },	/* import_pd */
	{ 45, PUBLIC(modify_cq) },	/* modify_cq: 136 on x86_64 */
	{ 46, PUBLIC(modify_flow_action_esp) },	/* modify_flow_action_esp: 80 on x86_64 */
	{ 47, PUBLIC(context.ops._compat_modify_qp) },	/* modify_qp: 512 on x86_64 */
	{ 48, PUBLIC(modify_qp_rate_limit) },	/* modify_qp_rate_limit: 104 on x86_64 */
	{ 49, PUBLIC(context.ops._compat_modify_srq) },	/* modify_srq: 464 on x86_64 */
	{ 50, PUBLIC(modify_wq) },	/* modify_wq: 176 on x86_64 */
	{ 51, PUBLIC(open_qp) },	/* open_qp: 256 on x86_64 */
	{ 52, PUBLIC(open_xrcd) },	/* open_xrcd: 288 on x86_64 */
	{ 53, PUBLIC(context.ops.poll_cq) },	/* poll_cq: 416 on x86_64 */
	{ 54, PUBLIC(context.ops.post_recv) },	/* post_recv: 536 on x86_64 */
	{ 55, PUBLIC(context.ops.post_send) },	/* post_send: 528 on x86_64 */
	{ 56, PUBLIC(post_srq_ops) },	/* post_srq_ops: 144 on x86_64 */
	{ 57, PUBLIC(context.ops.post_srq_recv) },	/* post_srq_recv: 488 on x86_64 */
	{ 58, PUBLIC(query_device_ex) },	/* query_device_ex: 216 on x86_64 */
	{ 59, NO_PUBLIC },	/* query_ece */
	{ 60, NO_PUBLIC },	/* query_port */
	{ 61, PUBLIC(context.ops._compat_query_qp) },	/* query_qp: 504 on x86_64 */
	{ 62, NO_PUBLIC },	/* query_qp_data_in_order */
	{ 63, PUBLIC(query_rt_values) },	/* query_rt_values: 192 on x86_64 */
	{ 64, PUBLIC(context.ops._compat_query_srq) },	/* query_srq: 472 on x86_64 */
	{ 65, PUBLIC(read_counters) },	/* read_counters: 24 on x86_64 */
	{ 66, PUBLIC(reg_dm_mr) },	/* reg_dm_mr: 56 on x86_64 */
	{ 67, NO_PUBLIC },	/* reg_dmabuf_mr */
	{ 68, PUBLIC(context.ops._compat_reg_mr) },	/* reg_mr: 360 on x86_64 */
	{ 69, PUBLIC(context.ops.req_notify_cq) },	/* req_notify_cq: 424 on x86_64 */
	{ 70, PUBLIC(context.ops._compat_rereg_mr) },	/* rereg_mr: 368 on x86_64 */
	{ 71, PUBLIC(context.ops._compat_resize_cq) },	/* resize_cq: 440 on x86_64 */
	{ 72, NO_PUBLIC },	/* set_ece */
	{ 73, NO_PUBLIC },	/* unimport_dm */
	{ 74, NO_PUBLIC },	/* unimport_mr */
	{ 75, NO_PUBLIC },	/* unimport_pd */
};

struct test_context {
	uint64_t head[3];
	struct verbs_context vctx;
	uint64_t tail;
};

static struct verbs_sysfs_dev *ctx_sysfs;
static struct verbs_device *ctx_dev;

static void *fn_at(const void *base, size_t offset)
{
	void *fn;

	memcpy(&fn, (const char *)base + offset, sizeof(fn));
	return fn;
}

static struct test_context *new_plugin_context(void)
{
	struct test_context *tc;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ctx_sysfs = new_sysfs_dev("plug0", 0, 1);
	ctx_dev = calloc(1, sizeof(*ctx_dev));
	ctx_dev->sysfs = ctx_sysfs;
	ctx_dev->ops = &by_name;
	atomic_init(&ctx_dev->refcount, 1);
	tc = _verbs_init_and_alloc_context(&ctx_dev->device, fd, sizeof(*tc),
					   &((struct test_context *)NULL)->vctx, 42);
	ck_assert_ptr_nonnull(tc);
	return tc;
}

START_TEST(context_is_initialised_with_placeholders)
{
	struct test_context *tc = new_plugin_context();
	struct verbs_context *vctx = &tc->vctx;
	const struct verbs_context_ops *priv;
	struct ibv_pd pd = { .context = &vctx->context };
	struct verbs_mr mr = { .ibv_mr.context = &vctx->context };

	ck_assert_ptr_eq(vctx->context.device, &ctx_dev->device);
	ck_assert_int_eq(vctx->context.async_fd, -1);
	ck_assert_ptr_eq(vctx->context.abi_compat, (void *)UINTPTR_MAX);
	ck_assert_uint_eq(vctx->sz, sizeof(struct verbs_context));
	ck_assert_uint_eq(vctx->priv->driver_id, 42);
	ck_assert_int_eq(atomic_load(&ctx_dev->refcount), 2);
	ck_assert_uint_eq(verbs_plugin_release(&vctx->context), 44);
	priv = verbs_plugin_ops(&vctx->context);
	for (size_t i = 0; i < sizeof(public_slots) / sizeof(public_slots[0]); i++) {
		void *fn = fn_at(priv, public_slots[i].idx * sizeof(void *));

		ck_assert_ptr_nonnull(fn);
		if (public_slots[i].public >= 0)
			ck_assert_ptr_eq(fn_at(vctx, public_slots[i].public), fn);
	}
	/* Placeholder behaviour by kind (FACTS 34). */
	errno = 0;
	ck_assert_ptr_null(priv->alloc_pd(&vctx->context));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(priv->dealloc_pd(&pd), EOPNOTSUPP);
	ck_assert_int_eq(priv->query_qp_data_in_order(NULL, IBV_WR_SEND, 0), 0);
	ck_assert_int_eq(priv->rereg_mr(&mr, 0, NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	priv->cq_event(NULL);
	/* The core's verbs reach them through the trampolines. */
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(&vctx->context));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_dealloc_pd(&pd), EOPNOTSUPP);
	verbs_uninit_context(vctx);
	ck_assert_int_eq(atomic_load(&ctx_dev->refcount), 1);
	free(tc);
}
END_TEST

static char marks[76];

START_TEST(set_ops_fills_private_and_public_slots)
{
	struct test_context *tc = new_plugin_context();
	struct verbs_context *vctx = &tc->vctx;
	struct verbs_context_ops all;
	void *create_cq_ex = vctx->create_cq_ex, *query_port = vctx->query_port;

	/* Slot i holds &marks[i]: never called, only compared. */
	for (int i = 0; i < 76; i++) {
		void *p = &marks[i];

		memcpy((char *)&all + i * sizeof(void *), &p, sizeof(p));
	}
	verbs_set_ops(vctx, &all);
	for (size_t i = 0; i < sizeof(public_slots) / sizeof(public_slots[0]); i++) {
		int idx = public_slots[i].idx;

		ck_assert_ptr_eq(fn_at(verbs_plugin_ops(&vctx->context), idx * sizeof(void *)),
				 &marks[idx]);
		if (public_slots[i].public >= 0)
			ck_assert_ptr_eq(fn_at(vctx, public_slots[i].public), &marks[idx]);
	}
	/* The core's own slots are not the plugin's to set. */
	ck_assert_ptr_eq((void *)vctx->create_cq_ex, create_cq_ex);
	ck_assert_ptr_eq((void *)vctx->query_port, query_port);
	ck_assert_uint_eq(tc->head[0] | tc->head[1] | tc->head[2] | tc->tail, 0);
	verbs_uninit_context(vctx);
	free(tc);
}
END_TEST

static struct ibv_pd *pd_one(struct ibv_context *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(struct ibv_pd));
}

static struct ibv_pd *pd_two(struct ibv_context *ctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	(void)ctx;
	pd->handle = 2;
	return pd;
}

static int poll_one(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq, (void)n, (void)wc;
	return 1;
}

START_TEST(set_ops_layers)
{
	struct test_context *tc = new_plugin_context();
	struct verbs_context *vctx = &tc->vctx;
	const struct verbs_context_ops first = { .alloc_pd = pd_one, .poll_cq = poll_one };
	const struct verbs_context_ops second = { .alloc_pd = pd_two };
	struct ibv_pd *pd;

	verbs_set_ops(vctx, &first);
	verbs_set_ops(vctx, &second);
	ck_assert_ptr_eq(verbs_plugin_ops(&vctx->context)->alloc_pd, pd_two);
	ck_assert_ptr_eq(verbs_plugin_ops(&vctx->context)->poll_cq, poll_one);
	ck_assert_ptr_eq(vctx->context.ops.poll_cq, poll_one);
	ck_assert_ptr_eq(fn_at(&vctx->context.ops, offsetof(struct ibv_context_ops, _compat_alloc_pd)),
			 pd_two);
	/* The core's ibv_alloc_pd reaches the later table, and completes
	 * the PD as upstream's does. */
	pd = ibv_alloc_pd(&vctx->context);
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(pd->handle, 2);
	ck_assert_ptr_eq(pd->context, &vctx->context);
	free(pd);
	verbs_uninit_context(vctx);
	free(tc);
}
END_TEST

static struct ibv_pd imported_pd;

static struct ibv_pd *import_pd_op(struct ibv_context *ctx, uint32_t handle)
{
	imported_pd.context = ctx;
	imported_pd.handle = handle;
	return &imported_pd;
}

static struct ibv_mr dmabuf_mr;

static struct ibv_mr *dmabuf_op(struct ibv_pd *pd, uint64_t offset, size_t length,
				uint64_t iova, int fd, int access)
{
	(void)pd, (void)iova, (void)fd, (void)access, (void)offset, (void)length;
	return &dmabuf_mr;
}

/* Ops without a struct verbs_ops entry reach the plugin's private copy. */
START_TEST(private_only_ops_through_the_core)
{
	struct test_context *tc = new_plugin_context();
	struct ibv_context *ctx = &tc->vctx.context;
	const struct verbs_context_ops ops = { .import_pd = import_pd_op,
					       .reg_dmabuf_mr = dmabuf_op };
	struct ibv_pd pd = { .context = ctx };

	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, 5));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(&pd, 4096, 100, 0, 3, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	verbs_set_ops(&tc->vctx, &ops);
	ck_assert_ptr_eq(ibv_import_pd(ctx, 5), &imported_pd);
	ck_assert_uint_eq(imported_pd.handle, 5);
	ck_assert_ptr_eq(ibv_reg_dmabuf_mr(&pd, 4096, 100, 0, 3, 0), &dmabuf_mr);
	ck_assert_ptr_eq(dmabuf_mr.pd, &pd);
	ck_assert_ptr_eq(dmabuf_mr.context, ctx);
	ck_assert_ptr_eq(dmabuf_mr.addr, (void *)4096);
	ck_assert_uint_eq(dmabuf_mr.length, 100);
	/* The placeholder: nothing to do. */
	ibv_unimport_pd(&imported_pd);
	verbs_uninit_context(&tc->vctx);
	free(tc);
}
END_TEST

START_TEST(core_slots_after_alloc_context)
{
	struct test_context *tc = new_plugin_context();
	struct verbs_context *vctx = &tc->vctx;

	verbs_plugin_fill_core_slots(vctx);
	ck_assert_ptr_eq(vctx->query_port, verbs_query_port_sized);
	ck_assert_ptr_eq(vctx->create_cq_ex, verbs_create_cq_ex);
	ck_assert_ptr_eq(vctx->context.ops._compat_query_port, ibv_query_port);
	ck_assert_ptr_eq(vctx->context.ops._compat_query_device, ibv_query_device);
	ck_assert_ptr_eq((void *)vctx->ABI_placeholder1, (void *)vctx->ibv_create_flow);
	ck_assert_ptr_eq((void *)vctx->ABI_placeholder2, (void *)vctx->ibv_destroy_flow);
	verbs_uninit_context(vctx);
	free(tc);
}
END_TEST

/* The library's calloc() (linked with --wrap=calloc) fails while set. */
static bool calloc_fails;
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	if (calloc_fails) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

START_TEST(failed_alloc_closes_cmd_fd)
{
	struct verbs_device dev = { .sysfs = NULL };
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	calloc_fails = true;
	errno = 0;
	ck_assert_ptr_null(_verbs_init_and_alloc_context(&dev.device, fd, 64, NULL, 0));
	calloc_fails = false;
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

START_TEST(read_ibdev_sysfs_file)
{
	struct verbs_sysfs_dev *d = new_sysfs_dev("rd0", 0, 1);
	char buf[8];

	unit_put("sys/class/infiniband/rd0/ports/1/state", "4: ACTIVE\n");
	unit_put("sys/class/infiniband/rd0/node_type", "1: CA");
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), d, "ports/%d/state", 1), -1);
	ck_assert_int_eq(errno, EOVERFLOW);
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), d, "node_type"), 5);
	ck_assert_str_eq(buf, "1: CA");
	unit_put("sys/class/infiniband/rd0/short", "abc\n");
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), d, "short"), 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), d, "missing"), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), NULL, "short"), -1);
	ck_assert_int_eq(errno, EINVAL);
	free(d);
}
END_TEST

START_TEST(wr_opcode_names)
{
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_RDMA_WRITE), "rdma-write");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_SEND_WITH_INV), "send-with-inv");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_DRIVER1), "driver1");
	ck_assert_str_eq(ibv_wr_opcode_str(14), "flush");
	ck_assert_str_eq(ibv_wr_opcode_str(IBV_WR_ATOMIC_WRITE), "atomic-write");
	ck_assert_str_eq(ibv_wr_opcode_str(12), "unknown");
	ck_assert_str_eq(ibv_wr_opcode_str(16), "unknown");
	ck_assert_str_eq(ibv_wr_opcode_str(-1), "unknown");
}
END_TEST

START_TEST(log_keeps_errno)
{
	errno = EBUSY;
	__verbs_log(NULL, 4, "quiet %d\n", 1);
	ck_assert_int_eq(errno, EBUSY);
}
END_TEST

START_TEST(qp_ex_set)
{
	struct verbs_qp a, b;

	ck_assert(!verbs_plugin_qp_ex_recorded(&a.qp));
	ck_assert_int_eq(verbs_plugin_qp_ex_record(&a.qp), 0);
	ck_assert(verbs_plugin_qp_ex_recorded(&a.qp));
	ck_assert(!verbs_plugin_qp_ex_recorded(&b.qp));
	verbs_plugin_qp_ex_forget(&b.qp);
	ck_assert(verbs_plugin_qp_ex_recorded(&a.qp));
	verbs_plugin_qp_ex_forget(&a.qp);
	ck_assert(!verbs_plugin_qp_ex_recorded(&a.qp));
}
END_TEST

/* A v56 plugin's verbs_qp is 8 bytes longer: whatever lies at the v44
 * comp_mask offset, the answer for a plugin QP is the recorded one. */
START_TEST(qp_to_qp_ex_of_plugin_qps)
{
	struct test_context *tc = new_plugin_context();
	struct verbs_qp *qp = calloc(1, sizeof(*qp) + 8);

	qp->qp.context = &tc->vctx.context;
	qp->comp_mask = VERBS_QP_EX;
	ck_assert_ptr_null(ibv_qp_to_qp_ex(&qp->qp));
	ck_assert_int_eq(verbs_plugin_qp_ex_record(&qp->qp), 0);
	qp->comp_mask = 0;
	ck_assert_ptr_eq(ibv_qp_to_qp_ex(&qp->qp), &qp->qp_ex);
	verbs_plugin_qp_ex_forget(&qp->qp);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(&qp->qp));
	free(qp);
	verbs_uninit_context(&tc->vctx);
	free(tc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A real plugin, loaded for a device of a fake sysfs tree             */

#if PLUGIN_LOADER
static int no_netlink(struct verbs_list_node *found)
{
	(void)found;
	errno = EOPNOTSUPP;
	return -1;
}

/* The fake plugin's handle if this process loaded it, else NULL. */
static void *fake_plugin(void)
{
	return dlopen(FAKE_PLUGIN_PREFIX "-rdmav34.so", RTLD_NOW | RTLD_NOLOAD);
}

static int plugin_int(void *handle, const char *name)
{
	int *p = dlsym(handle, name);

	ck_assert_ptr_nonnull(p);
	return *p;
}

/* A built-in provider that wants the same devices as the fake plugin:
 * built-ins claim first, unless OPENVERBS_DISABLE_PROVIDERS names them. */
static const char *const builtin_names[] = { "plug*", NULL };
static const struct verbs_provider builtin = {
	.name = "builtin", .ibdev_patterns = builtin_names, .min_abi = 1, .max_abi = 1,
};
/* Discovery sees it instead of the built-in providers. */
static const struct verbs_provider *const builtin_providers[] = { &builtin, NULL };

/* Each test its own tree: files outlive the forked test processes. */
static void fake_tree(void)
{
	unit_tree_clear_devices();
	unit_put("sys/class/infiniband_verbs/abi_version", "6\n");
	unit_tree_serve_devices();
	verbs_providers = builtin_providers;
	verbs_netlink_scanner = no_netlink;
	no_loading();
	setenv("RDMAV_DRIVERS", "/nonexistent/first:" FAKE_PLUGIN_PREFIX, 1);
	setenv("OPENVERBS_DISABLE_PROVIDERS", "other,builtin", 1);
}

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp((*list)->name, name))
			return *list;
	return NULL;
}

START_TEST(plugin_loaded_once_for_an_unclaimed_device)
{
	struct ibv_device **list, **again, *dev;
	void *handle;
	char path[PATH_MAX];

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	ck_assert_ptr_null(fake_plugin());
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(list);
	handle = fake_plugin();
	ck_assert_ptr_nonnull(handle);
	ck_assert_int_eq(plugin_int(handle, "fake_plugin_registrations"), 1);
	dev = find(list, "plug0");
	ck_assert_ptr_nonnull(dev);
	/* The plugin's own ops pointer, and the fields the core fills. */
	ck_assert_ptr_eq(verbs_get_device(dev)->ops, dlsym(handle, "fake_plugin_ops"));
	ck_assert_str_eq(dev->dev_name, "uverbs0");
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/plug0", unit_root);
	ck_assert_str_eq(dev->ibdev_path, path);
	ck_assert_int_eq(dev->node_type, IBV_NODE_CA);
	ck_assert_int_eq(dev->transport_type, IBV_TRANSPORT_IB);
	ck_assert_int_eq(plugin_int(handle, "fake_plugin_abi"), 1);
	/* Listed again: no second load, the same device. */
	unit_add_device("uverbs1", "lonely0", "1\n", true);
	again = ibv_get_device_list(NULL);
	ck_assert_ptr_eq(find(again, "plug0"), dev);
	ck_assert_ptr_null(find(again, "lonely0"));
	ck_assert_int_eq(plugin_int(handle, "fake_plugin_registrations"), 1);
	ck_assert_int_eq(plugin_int(handle, "fake_plugin_devices"), 1);
	ibv_free_device_list(again);
	ibv_free_device_list(list);
	dlclose(handle);
}
END_TEST

START_TEST(plugin_context_through_the_core)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	void *handle;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "plug0"));
	ctx = ibv_open_device(find(list, "plug0"));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_eq(verbs_priv(ctx)->driver_id, 77);
	ck_assert_uint_eq(verbs_plugin_release(ctx), 44);
	ck_assert_ptr_eq(verbs_get_ctx(ctx)->query_port, verbs_query_port_sized);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_eq(pd->context, ctx);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	/* What the plugin left unset is a placeholder. */
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 1, NULL, NULL, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
	handle = fake_plugin();
	ck_assert_ptr_nonnull(handle);
	dlclose(handle);
}
END_TEST

START_TEST(no_unclaimed_device_loads_nothing)
{
	struct ibv_device **list;
	struct ibv_device *dev;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	unsetenv("OPENVERBS_DISABLE_PROVIDERS");
	list = ibv_get_device_list(NULL);
	dev = find(list, "plug0");
	ck_assert_ptr_nonnull(dev);
	ck_assert_ptr_eq(verbs_sysfs_provider(verbs_get_device(dev)->sysfs), &builtin);
	ck_assert_ptr_null(verbs_get_device(dev)->ops);
	ck_assert_ptr_null(fake_plugin());
	ibv_free_device_list(list);
}
END_TEST

START_TEST(loading_is_tried_once_per_process)
{
	struct ibv_device **list;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	setenv("RDMAV_DRIVERS", "/nonexistent/first", 1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "plug0"));
	ibv_free_device_list(list);
	/* Still unclaimed, and now named: not loaded, the loader ran. */
	setenv("RDMAV_DRIVERS", FAKE_PLUGIN_PREFIX, 1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "plug0"));
	ck_assert_ptr_null(fake_plugin());
	ibv_free_device_list(list);
}
END_TEST

/* A library-style plugin tells its rdma-core release in its real file
 * name, behind the -rdmav34.so symlink. */
START_TEST(release_from_the_real_file_name)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	char cmd[PATH_MAX * 2];

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	snprintf(cmd, sizeof(cmd), "cp '%s-rdmav34.so' '%s/libfake.so.1.25.56.1' && "
		 "ln -sf libfake.so.1.25.56.1 '%s/libv56-rdmav34.so'",
		 FAKE_PLUGIN_PREFIX, unit_root, unit_root);
	ck_assert_int_eq(system(cmd), 0);
	setenv("RDMAV_DRIVERS", unit_at("libv56"), 1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "plug0"));
	ctx = ibv_open_device(find(list, "plug0"));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_eq(verbs_plugin_release(ctx), 56);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}
END_TEST

/* What listing plug0 with an unloadable plugin named writes to stderr. */
static void stderr_of_failed_load(char *out, size_t size)
{
	struct ibv_device **list;
	int saved = dup(2), fd;
	ssize_t n;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	setenv("RDMAV_DRIVERS", "/nonexistent/plugin", 1);
	fd = open(unit_at("stderr"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	list = ibv_get_device_list(NULL);
	dup2(saved, 2);
	close(saved);
	ibv_free_device_list(list);
	n = pread(fd, out, size - 1, 0);
	close(fd);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
}

START_TEST(failed_loads_are_quiet)
{
	char out[4096];

	unsetenv("IBV_SHOW_WARNINGS");
	unsetenv("VERBS_LOG_LEVEL");
	stderr_of_failed_load(out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(failed_loads_said_when_asked)
{
	char out[4096];

	setenv("IBV_SHOW_WARNINGS", "1", 1);
	stderr_of_failed_load(out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/plugin-rdmav34.so"));
}
END_TEST

/* The data object mlx5 reads follows the core's rule (FACTS 43). */
START_TEST(disassociate_destroy_flag)
{
	struct test_context *tc;

	setenv("RDMAV_ALLOW_DISASSOC_DESTROY", "1", 1);
	tc = new_plugin_context();
	ck_assert(verbs_allow_disassociate_destroy);
	verbs_uninit_context(&tc->vctx);
	free(tc);
	free(ctx_sysfs);
	free(ctx_dev);
	unsetenv("RDMAV_ALLOW_DISASSOC_DESTROY");
	tc = new_plugin_context();
	ck_assert(!verbs_allow_disassociate_destroy);
	verbs_uninit_context(&tc->vctx);
	free(tc);
}
END_TEST

/* FACTS 27 through the bridge: a device found by the char device number
 * (/dev/null's here), the caller's fd owned on success only. */
START_TEST(import_through_the_bridge)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int fd;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	unit_put("sys/class/infiniband_verbs/uverbs0/dev", "1:3\n");
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "plug0"));
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	setenv("FAKE_PLUGIN_REFUSE_IMPORT", "1", 1);
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(fd));
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	unsetenv("FAKE_PLUGIN_REFUSE_IMPORT");
	ctx = ibv_import_device(fd);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(ctx->cmd_fd, fd);
	ck_assert_ptr_eq(ctx->device, find(list, "plug0"));
	ck_assert_ptr_eq(verbs_get_ctx(ctx)->query_port, verbs_query_port_sized);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(ibv_drivers_when_rdmav_drivers_unset)
{
	struct ibv_device **list;

	fake_tree();
	unit_add_device("uverbs0", "plug0", "1\n", true);
	unsetenv("RDMAV_DRIVERS");
	setenv("IBV_DRIVERS", FAKE_PLUGIN_PREFIX, 1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(list, "plug0"));
	ck_assert_ptr_nonnull(fake_plugin());
	ibv_free_device_list(list);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("plugins");
	TCase *loader = tcase_create("loader"), *reg = tcase_create("registry");
	TCase *match = tcase_create("match"), *ctx = tcase_create("context");
	TCase *helpers = tcase_create("helpers"), *e2e = tcase_create("fake-plugin");
	int status;

	if (!unit_tree_make("/tmp/ov-plug-XXXXXX"))
		return EXIT_FAILURE;
#if PLUGIN_LOADER
	tcase_add_test(loader, config_lines);
	tcase_add_test(loader, unreadable_config_is_an_error_only);
	tcase_add_test(loader, names_to_paths);
	tcase_add_test(loader, setuid_ignores_the_environment);
#endif
	tcase_add_test(reg, registration_keeps_order_and_pointers);
	tcase_add_test(match, match_by_driver_id_then_name);
	tcase_add_test(match, match_by_pci_modalias_upper_case);
	tcase_add_test(match, modalias_read_only_when_needed);
	tcase_add_test(match, abi_range_is_checked_last);
	tcase_add_test(match, match_device_decides);
	tcase_add_test(match, driver_id_in_table);
	tcase_add_test(match, driver_id_owners_claim_first);
	tcase_add_test(ctx, context_is_initialised_with_placeholders);
	tcase_add_test(ctx, set_ops_fills_private_and_public_slots);
	tcase_add_test(ctx, set_ops_layers);
	tcase_add_test(ctx, core_slots_after_alloc_context);
	tcase_add_test(ctx, private_only_ops_through_the_core);
	tcase_add_test(ctx, failed_alloc_closes_cmd_fd);
	tcase_add_test(helpers, read_ibdev_sysfs_file);
	tcase_add_test(helpers, wr_opcode_names);
	tcase_add_test(helpers, log_keeps_errno);
	tcase_add_test(helpers, qp_ex_set);
	tcase_add_test(ctx, qp_to_qp_ex_of_plugin_qps);
#if PLUGIN_LOADER
	tcase_add_test(e2e, plugin_loaded_once_for_an_unclaimed_device);
	tcase_add_test(e2e, plugin_context_through_the_core);
	tcase_add_test(e2e, no_unclaimed_device_loads_nothing);
	tcase_add_test(e2e, ibv_drivers_when_rdmav_drivers_unset);
	tcase_add_test(e2e, loading_is_tried_once_per_process);
	tcase_add_test(e2e, release_from_the_real_file_name);
	tcase_add_test(e2e, failed_loads_are_quiet);
	tcase_add_test(e2e, failed_loads_said_when_asked);
	tcase_add_test(e2e, disassociate_destroy_flag);
	tcase_add_test(e2e, import_through_the_bridge);
#endif
	suite_add_tcase(s, loader);
	suite_add_tcase(s, reg);
	suite_add_tcase(s, match);
	suite_add_tcase(s, ctx);
	suite_add_tcase(s, helpers);
	suite_add_tcase(s, e2e);
	/* Registrations and loaded plugins last for the process. */
	status = unit_run(s, CK_FORK);
	if (!unit_tree_remove())
		status = EXIT_FAILURE;
	return status;
}
