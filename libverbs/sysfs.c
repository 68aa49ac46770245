/* SPDX-License-Identifier: MIT */
/* Where sysfs lives, and reading attributes from it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Zero-initialised, so it takes no room in the file (an initialiser would
 * put all PATH_MAX bytes into .data); the default is filled in once. */
static char sysfs_path[PATH_MAX];
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;

/* SYSFS_PATH lets tests and containers point us at another tree; setuid
 * programs ignore it (secure_getenv) so it cannot redirect them. */
static void sysfs_path_init(void)
{
	const char *env = secure_getenv("SYSFS_PATH");
	size_t len;

	strcpy(sysfs_path, "/sys");
	if (!env || !*env)
		return;
	len = strlen(env);
	while (len > 1 && env[len - 1] == '/')
		len--;
	if (len >= sizeof(sysfs_path))
		return;
	memcpy(sysfs_path, env, len);
	sysfs_path[len] = '\0';
}

const char *ibv_get_sysfs_path(void)
{
	pthread_once(&sysfs_once, sysfs_path_init);
	return sysfs_path;
}

int verbs_read_attribute(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len < 0)
		return -1;
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if ((size_t)len < size)
		buf[len] = '\0';
	return len;
}

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return verbs_read_attribute(path, buf, size);
}

int verbs_read_sysfs(char *buf, size_t size, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX];
	va_list ap;
	int n, len;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (!size || n < 0 || n >= (int)sizeof(rel) ||
	    snprintf(path, sizeof(path), "%s/%s", ibv_get_sysfs_path(), rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* Internal callers always get a terminated string. */
	len = verbs_read_attribute(path, buf, size - 1);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}
