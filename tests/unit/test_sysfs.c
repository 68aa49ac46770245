/* SPDX-License-Identifier: MIT */
/* sysfs location (SYSFS_PATH) and attribute reading, on a fake tree. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "unit.h"

START_TEST(sysfs_path_from_env_without_trailing_slashes)
{
	ck_assert_str_eq(ibv_get_sysfs_path(), unit_root);
}
END_TEST

START_TEST(attribute_loses_its_newline)
{
	char buf[64];

	unit_put("class/infiniband_verbs/uverbs0/ibdev", "rxe0\n");
	ck_assert_int_eq(verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/ibdev",
					  "uverbs0"), 4);
	ck_assert_str_eq(buf, "rxe0");
}
END_TEST

START_TEST(internal_read_always_terminates)
{
	char buf[4];

	unit_put("class/infiniband_verbs/uverbs0/abi_version", "123456\n");
	ck_assert_int_eq(verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/uverbs0/abi_version"), 3);
	ck_assert_str_eq(buf, "123");
}
END_TEST

START_TEST(public_read_keeps_upstream_contract)
{
	char dir[PATH_MAX], buf[8];

	snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs/uverbs0", unit_root);
	unit_put("class/infiniband_verbs/uverbs0/dev", "231:192\n");
	memset(buf, 'x', sizeof(buf));
	/* The whole buffer is used: no room for a terminator, none written. */
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "dev", buf, 4), 4);
	ck_assert_int_eq(memcmp(buf, "231:x", 5), 0);
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "dev", buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "231:192");
}
END_TEST

START_TEST(missing_attribute_is_enoent)
{
	char buf[8];

	errno = 0;
	ck_assert_int_eq(verbs_read_sysfs(buf, sizeof(buf), "class/nothing/here"), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(ibv_read_sysfs_file(unit_root, "nothing", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(overlong_path_is_enametoolong)
{
	char name[PATH_MAX + 8], buf[8];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(verbs_read_sysfs(buf, sizeof(buf), "%s", name), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	ck_assert_int_eq(ibv_read_sysfs_file(unit_root, name, buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
}
END_TEST

int main(void)
{
	char env[PATH_MAX + 8];
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("core");
	int status;

	if (!unit_tree_make("/tmp/ov-sysfs-XXXXXX"))
		return EXIT_FAILURE;
	snprintf(env, sizeof(env), "%s///", unit_root);
	setenv("SYSFS_PATH", env, 1);

	tcase_add_test(tc, sysfs_path_from_env_without_trailing_slashes);
	tcase_add_test(tc, attribute_loses_its_newline);
	tcase_add_test(tc, internal_read_always_terminates);
	tcase_add_test(tc, public_read_keeps_upstream_contract);
	tcase_add_test(tc, missing_attribute_is_enoent);
	tcase_add_test(tc, overlong_path_is_enametoolong);
	suite_add_tcase(s, tc);
	status = unit_run(s, CK_FORK_GETENV);
	if (!unit_tree_remove())
		status = EXIT_FAILURE;
	return status;
}
