/* SPDX-License-Identifier: MIT */
/* Process-wide settings from the environment, logging, one-time setup. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fork.h"
#include "internal.h"

const char *verbs_dev_dir = "/dev/infiniband";

/* Hand-joined: rescans build this path for every device, and snprintf
 * was a quarter of a warm rescan's instructions. */
bool verbs_dev_path(char *path, size_t size, const char *cdev)
{
	size_t dir_len = strlen(verbs_dev_dir), cdev_len = strlen(cdev);

	if (dir_len + 1 + cdev_len + 1 > size)
		return false;
	memcpy(path, verbs_dev_dir, dir_len);
	path[dir_len] = '/';
	memcpy(path + dir_len + 1, cdev, cdev_len + 1);
	return true;
}

/* "all", or names separated by ',' or ':'.  Read at each probe, which
 * only new devices cause; set-uid programs ignore it (secure_getenv), as
 * they ignore the plugin list it would hand devices to. */
bool verbs_provider_disabled(const char *name)
{
	const char *list = secure_getenv("OPENVERBS_DISABLE_PROVIDERS");
	size_t len = strlen(name);

	if (!list)
		return false;
	if (!strcmp(list, "all"))
		return true;
	for (const char *p = list; *p; p += strcspn(p, ",:")) {
		p += strspn(p, ",:");
		if (!strncmp(p, name, len) && (p[len] == '\0' || p[len] == ',' || p[len] == ':'))
			return true;
	}
	return false;
}

bool verbs_warnings_enabled(void)
{
	return getenv("IBV_SHOW_WARNINGS") != NULL;
}

bool verbs_allow_disassoc_destroy(void)
{
	return getenv("RDMAV_ALLOW_DISASSOC_DESTROY") != NULL;
}

enum verbs_cmd_mode verbs_cmd_mode_default(void)
{
	const char *mode = getenv("OPENVERBS_CMD_MODE");

	if (!mode || !*mode)
		mode = CMD_MODE;
	if (!strcmp(mode, "write"))
		return VERBS_CMD_WRITE;
	if (!strcmp(mode, "ioctl"))
		return VERBS_CMD_IOCTL;
	return VERBS_CMD_AUTO;
}

/* ------------------------------------------------------------------ */
/* Logging: VERBS_LOG_LEVEL (1 errors .. 4 debug), VERBS_LOG_FILE.     */

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static int log_level;
static FILE *log_file;

static void log_init(void)
{
	const char *level = getenv("VERBS_LOG_LEVEL");
	const char *path = secure_getenv("VERBS_LOG_FILE");

	if (level)
		log_level = atoi(level);
	if (log_level <= 0)
		return;
	if (path && *path)
		log_file = fopen(path, "ae");
	if (!log_file)
		log_file = stderr;
}

void verbs_vlog(enum verbs_log_level level, const char *fmt, va_list ap)
{
	pthread_once(&log_once, log_init);
	if ((int)level > log_level)
		return;
	vfprintf(log_file, fmt, ap);
	fflush(log_file);
}

void verbs_log(enum verbs_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verbs_vlog(level, fmt, ap);
	va_end(ap);
}

void verbs_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (verbs_warnings_enabled()) {
		fputs("libibverbs: Warning: ", stderr);
		vfprintf(stderr, fmt, ap);
	} else {
		verbs_vlog(VERBS_LOG_WARN, fmt, ap);
	}
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* One-time setup                                                      */

/* Registrations pin memory, counted against RLIMIT_MEMLOCK: a small
 * limit makes them fail in ways that are hard to trace back. */
static void check_memlock(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur <= 32768)
		verbs_warn("RLIMIT_MEMLOCK is %llu bytes.\n"
			   "    This will severely limit memory registrations.\n",
			   (unsigned long long)rl.rlim_cur);
}

static void init(void)
{
	verbs_fork_init_from_env();
	check_memlock();
}

void verbs_init_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init);
}
