/* SPDX-License-Identifier: MIT */
/*
 * Finding and dlopen()ing upstream's provider plugins (FACTS 6-9).  The
 * core calls verbs_plugins_load_once() only when a listed device is left
 * unclaimed, so a process with no such device never loads anything.  Not
 * built with -Dplugins=disabled.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugins.h"

const char *verbs_plugin_confdir = PLUGIN_CONFDIR;
const char *verbs_plugin_dir = PLUGIN_DIR;

/* The name gives every plugin built for this interface (FACTS 1). */
#define PLUGIN_SUFFIX "-rdmav34.so"

/* A set-uid program must not load code its caller names (FACTS 7). */
bool verbs_plugin_env_trusted(uid_t uid, uid_t euid)
{
	return uid == euid;
}

/* One line of a config file; line is NUL-terminated, newline removed. */
static void config_line(const char *path, char *line,
			void (*add)(const char *name, void *arg), void *arg)
{
	char *save, *word, *name;

	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return;
	word = strtok_r(line, " \t\r", &save);
	name = strtok_r(NULL, " \t\r", &save);
	if (!word)
		return;
	if (strcmp(word, "driver") || !name) {
		verbs_warn("%s: ignoring line \"%s%s%s\"\n", path, word,
			   name ? " " : "", name ? name : "");
		return;
	}
	add(name, arg);
}

int verbs_plugin_read_config(const char *path,
			     void (*add)(const char *name, void *arg), void *arg)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f) {
		int err = errno;

		verbs_warn("couldn't read provider config %s: %s\n", path, strerror(err));
		return err;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		config_line(path, line, add, arg);
	}
	free(line);
	fclose(f);
	return 0;
}

/* Every regular file in dir, whatever its name (FACTS 8). */
static void read_config_dir(const char *dir, void (*add)(const char *name, void *arg),
			    void *arg)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d) {
		verbs_warn("couldn't open provider config directory %s\n", dir);
		return;
	}
	while ((de = readdir(d))) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		verbs_plugin_read_config(path, add, arg);
	}
	closedir(d);
}

int verbs_plugin_candidates(const char *name, char paths[2][PATH_MAX])
{
	size_t size = PATH_MAX;

	/* A path prefix is taken as it is, and nothing else tried. */
	if (name[0] == '/')
		return (size_t)snprintf(paths[0], size, "%s" PLUGIN_SUFFIX, name) < size;
	if ((size_t)snprintf(paths[0], size, "%s/lib%s" PLUGIN_SUFFIX, verbs_plugin_dir, name) >= size ||
	    (size_t)snprintf(paths[1], size, "lib%s" PLUGIN_SUFFIX, name) >= size)
		return 0;
	return 2;
}

/* Handles are never closed: the plugin's registration points into it. */
static void load_plugin(const char *name, void *arg)
{
	char paths[2][PATH_MAX];
	int n = verbs_plugin_candidates(name, paths);

	(void)arg;
	for (int i = 0; i < n; i++) {
		if (dlopen(paths[i], RTLD_NOW))
			return;
		/* Only the last attempt's failure is worth a word. */
		if (i == n - 1)
			verbs_warn("couldn't load driver '%s': %s\n", paths[i], dlerror());
	}
}

static void load_env_list(void)
{
	const char *list = getenv("RDMAV_DRIVERS");
	char *copy, *save, *name;

	if (!list)
		list = getenv("IBV_DRIVERS");
	if (!list || !verbs_plugin_env_trusted(getuid(), geteuid()))
		return;
	copy = strdup(list);
	if (!copy)
		return;
	for (name = strtok_r(copy, ":;", &save); name; name = strtok_r(NULL, ":;", &save))
		load_plugin(name, NULL);
	free(copy);
}

static void load_all(void)
{
	load_env_list();
	read_config_dir(verbs_plugin_confdir, load_plugin, NULL);
}

void verbs_plugins_load_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, load_all);
}
