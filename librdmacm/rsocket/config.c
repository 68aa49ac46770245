/* SPDX-License-Identifier: MIT */
/*
 * Process-wide tunables (WIRE.md part C): defaults, overridden by one
 * number per file in RSOCKET_CONFDIR, read once at the first rsocket().
 * A file that is missing or does not start with a number keeps the
 * default.
 */
#include <limits.h>
#include <stdio.h>

#include "config.h"
#include "rs.h"

struct rs_config rs_config;

static const struct rs_config rs_defaults = {
	.mem_default = 128 * 1024,
	.wmem_default = 128 * 1024,
	.sqsize_default = 384,
	.rqsize_default = 384,
	.inline_default = 64,
	.iomap_size = 0,
	.polling_time = 10,
	.wake_up_interval = 5000,
	.keepalive_time = 7200,
};

/* Upstream's iomap table advertises at most 128 entries for a file value
 * (it keeps the value as a scale byte); a peer sees the same when we clamp. */
enum { RS_CONFIG_MAX_IOMAP = 128 };

/* The number in dir/name, scanned with fmt into value: false if none. */
static bool read_number(const char *dir, const char *name, const char *fmt, void *value)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fscanf(f, fmt, value) == 1;
	fclose(f);
	return ok;
}

void rs_config_load(struct rs_config *cfg, const char *dir, const char *keepalive_file)
{
	FILE *f;

	*cfg = rs_defaults;
	if (read_number(dir, "mem_default", "%u", &cfg->mem_default) && cfg->mem_default < 1)
		cfg->mem_default = 1;
	if (read_number(dir, "wmem_default", "%u", &cfg->wmem_default) &&
	    cfg->wmem_default < RS_SNDLOWAT)
		cfg->wmem_default = RS_SNDLOWAT * 2;
	read_number(dir, "sqsize_default", "%hu", &cfg->sqsize_default);
	read_number(dir, "rqsize_default", "%hu", &cfg->rqsize_default);
	read_number(dir, "inline_default", "%hu", &cfg->inline_default);
	if (read_number(dir, "iomap_size", "%hu", &cfg->iomap_size) &&
	    cfg->iomap_size > RS_CONFIG_MAX_IOMAP)
		cfg->iomap_size = RS_CONFIG_MAX_IOMAP;
	read_number(dir, "polling_time", "%u", &cfg->polling_time);
	read_number(dir, "wake_up_interval", "%d", &cfg->wake_up_interval);

	f = fopen(keepalive_file, "re");
	if (f) {
		if (fscanf(f, "%u", &cfg->keepalive_time) != 1 || !cfg->keepalive_time)
			cfg->keepalive_time = rs_defaults.keepalive_time;
		fclose(f);
	}
}

static void rs_config_once(void)
{
	rs_config_load(&rs_config, RSOCKET_CONFDIR, "/proc/sys/net/ipv4/tcp_keepalive_time");
}

void rs_configure(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, rs_config_once);
}
