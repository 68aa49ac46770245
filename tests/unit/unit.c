/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

int unit_run(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

char unit_root[64];

bool unit_tree_make(const char *template)
{
	snprintf(unit_root, sizeof(unit_root), "%s", template);
	return mkdtemp(unit_root) != NULL;
}

bool unit_tree_remove(void)
{
	char cmd[sizeof(unit_root) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_root);
	return system(cmd) == 0;
}

void unit_tree_serve_devices(void)
{
	static char dev_dir[sizeof(unit_root) + 4];

	setenv("SYSFS_PATH", unit_at("sys"), 1);
	snprintf(dev_dir, sizeof(dev_dir), "%s/dev", unit_root);
	verbs_dev_dir = dev_dir;
}

void unit_tree_clear_devices(void)
{
	char cmd[2 * sizeof(unit_root) + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys' '%s/dev'", unit_root, unit_root);
	ck_assert_int_eq(system(cmd), 0);
}

const char *unit_at(const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", unit_root, rel);
	return path;
}

void unit_put(const char *rel, const char *value)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", unit_root, rel);
	for (p = path + strlen(unit_root) + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = '\0';
		mkdir(path, 0755);
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(value, f);
	fclose(f);
}

/* A uverbs device in sysfs, with its /dev node if dev_node. */
void unit_add_device(const char *cdev, const char *ibdev, const char *abi, bool dev_node)
{
	char rel[128], line[80];

	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/ibdev", cdev);
	snprintf(line, sizeof(line), "%s\n", ibdev);
	unit_put(rel, line);
	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/abi_version", cdev);
	unit_put(rel, abi);
	/* The node is /dev/null: opening checks it is the character device
	 * discovery named, as a real uverbs node would be. */
	snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/%s/dev", cdev);
	unit_put(rel, "1:3\n");
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_type", ibdev);
	unit_put(rel, "1: CA\n");
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/node_guid", ibdev);
	unit_put(rel, "0002:c903:0010:ab12\n");
	if (dev_node) {
		snprintf(rel, sizeof(rel), "dev/%s", cdev);
		unit_put(rel, "");
		ck_assert_int_eq(unlink(unit_at(rel)), 0);
		ck_assert_int_eq(symlink("/dev/null", unit_at(rel)), 0);
	}
}

struct fake_kernel fake_kernel;

struct fake_cmd fake_cmd_parse(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	struct fake_cmd c = {
		.number = hdr->command,
		.req = (uint8_t *)buf + sizeof(*hdr),
		.req_len = len - sizeof(*hdr),
		.resp_len = hdr->out_words * 4,
	};
	uint64_t response;

	ck_assert(!(hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED));
	ck_assert_uint_eq(hdr->in_words * 4, len);
	if (c.resp_len) {
		memcpy(&response, c.req, sizeof(response));
		c.resp = (void *)(uintptr_t)response;
	}
	return c;
}

void fake_get_context(const struct fake_cmd *c)
{
	struct ib_uverbs_get_context_resp *r = c->resp;

	ck_assert_uint_ge(c->resp_len, sizeof(*r));
	r->async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	r->num_comp_vectors = 1;
}

uint32_t fake_kernel_handle(void)
{
	ck_assert_uint_lt(fake_kernel.handles, FAKE_MAX_HANDLES);
	return fake_kernel.handles++;
}

uint64_t fake_kernel_alloc(size_t size)
{
	uint64_t offset = fake_kernel.next;

	size = (size + FAKE_PAGE - 1) & ~(size_t)(FAKE_PAGE - 1);
	ck_assert_uint_le(offset + size, fake_kernel.driver->mem_size);
	fake_kernel.next += size;
	memset(fake_kernel.mem + offset, 0, size);
	return offset;
}

/* The commands whose answer does not depend on the driver. */
static bool core_cmd(const struct fake_cmd *c)
{
	switch (c->number) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		ck_assert_uint_ge(c->resp_len, sizeof(struct ib_uverbs_get_context_resp) +
					       fake_kernel.driver->context_resp_len);
		fake_get_context(c);
		return true;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		((struct ib_uverbs_alloc_pd_resp *)c->resp)->pd_handle = fake_kernel_handle();
		return true;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
	case IB_USER_VERBS_CMD_DESTROY_AH:
		return true;
	default:
		return false;
	}
}

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	struct fake_cmd c = fake_cmd_parse(buf, len);
	int err = 0;

	ck_assert_int_eq(fd, fake_kernel.fd);
	ck_assert_uint_lt(c.number, FAKE_MAX_CMDS);
	fake_kernel.ncmds[c.number]++;
	if (fake_kernel.during_cmd)
		fake_kernel.during_cmd(c.number);
	if ((int)c.number == fake_kernel.fail_cmd)
		err = EINVAL;
	else if (c.resp)
		memset(c.resp, 0, c.resp_len);
	if (!err && !core_cmd(&c) && fake_kernel.driver->cmd)
		err = fake_kernel.driver->cmd(&c);
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	(void)fd, (void)request, (void)arg;
	ck_abort_msg("ioctl in write mode");
	return -1;
}

void fake_kernel_start(const struct fake_driver *driver)
{
	setenv("OPENVERBS_CMD_MODE", "write", 1);
	verbs_sys.write = fake_write;
	verbs_sys.ioctl = fake_ioctl;
	memset(&fake_kernel, 0, sizeof(fake_kernel));
	fake_kernel.driver = driver;
	fake_kernel.fail_cmd = -1;
	fake_kernel.handles = 1;
	fake_kernel.fd = memfd_create(driver->provider, MFD_CLOEXEC);
	ck_assert_int_ge(fake_kernel.fd, 0);
	ck_assert_int_eq(ftruncate(fake_kernel.fd, driver->mem_size), 0);
	fake_kernel.mem = mmap(NULL, driver->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fake_kernel.fd, 0);
	ck_assert(fake_kernel.mem != MAP_FAILED);
	/* Offset 0 stays unused: no queue is announced there. */
	fake_kernel.next = FAKE_PAGE;
}

/* The device the provider's context is made for, kept alive by a
 * reference of the test's own. */
static struct verbs_sysfs_dev fake_sysfs;
static struct verbs_device fake_device;
static const struct verbs_provider *fake_provider;

struct ibv_context *fake_kernel_open(const struct verbs_sysfs_dev *sysfs)
{
	struct verbs_context *vctx;

	fake_provider = verbs_match_provider(sysfs);
	ck_assert_ptr_nonnull(fake_provider);
	ck_assert_str_eq(fake_provider->name, fake_kernel.driver->provider);
	fake_sysfs = *sysfs;
	fake_sysfs.provider_data = (void *)fake_provider;
	fake_device.sysfs = &fake_sysfs;
	atomic_init(&fake_device.refcount, 1);
	vctx = fake_provider->alloc_context(&fake_device, fake_kernel.fd, NULL);
	ck_assert_ptr_nonnull(vctx);
	return &vctx->context;
}

/* The context owns the kernel's fd and closes it. */
void fake_kernel_close(struct ibv_context *ctx)
{
	fake_provider->free_context(ctx);
	munmap(fake_kernel.mem, fake_kernel.driver->mem_size);
}

struct verbs_context *unit_bare_context(struct verbs_device *dev, int cmd_fd, bool with_async_fd)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));
	int ret = ENOMEM;

	if (vctx)
		ret = verbs_init_context(vctx, dev, cmd_fd);
	if (ret) {
		free(vctx);
		close(cmd_fd);
		errno = ret;
		return NULL;
	}
	if (with_async_fd)
		vctx->context.async_fd = dup(cmd_fd);
	return vctx;
}

void unit_bare_context_free(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	verbs_uninit_context(vctx);
	free(vctx);
}

bool unit_dontfork(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	uintptr_t lo, hi, a = (uintptr_t)addr;
	bool inside = false, dc = false;
	char line[1024];

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2)
			inside = lo <= a && a < hi;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}
