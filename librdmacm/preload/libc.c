// SPDX-License-Identifier: MIT
/* The real libc functions (dlsym(RTLD_NEXT)) and the one-time setup. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "config.h"
#include "preload.h"

/* Beside librdmacm's own rsocket tunables. */
#define PRELOAD_CONFIG RSOCKET_CONFDIR "/preload_config"

struct real_libc real;
struct preload_env preload_env;

#define RESOLVE(name) (*(void **)&real.name = dlsym(RTLD_NEXT, #name))

void libc_resolve(void)
{
	RESOLVE(socket);
	RESOLVE(bind);
	RESOLVE(listen);
	RESOLVE(accept);
	RESOLVE(accept4);
	RESOLVE(connect);
	RESOLVE(recv);
	RESOLVE(recvfrom);
	RESOLVE(recvmsg);
	RESOLVE(read);
	RESOLVE(readv);
	RESOLVE(send);
	RESOLVE(sendto);
	RESOLVE(sendmsg);
	RESOLVE(write);
	RESOLVE(writev);
	RESOLVE(poll);
	RESOLVE(select);
	RESOLVE(shutdown);
	RESOLVE(setsockopt);
	RESOLVE(getsockopt);
	RESOLVE(getpeername);
	RESOLVE(getsockname);
	RESOLVE(fcntl);
	RESOLVE(fcntl64);
	RESOLVE(dup);
	RESOLVE(dup2);
	RESOLVE(close);
	RESOLVE(sendfile);
	RESOLVE(sendfile64);
	/* An older libc without fcntl64 (before 2.28): same call on 64-bit. */
	if (!real.fcntl64)
		real.fcntl64 = real.fcntl;
}

static int env_int(const char *name)
{
	const char *value = getenv(name);

	return value ? atoi(value) : 0;
}

static void init_once(void)
{
	libc_resolve();
	preload_env.sq_size = env_int("RS_SQ_SIZE");
	preload_env.rq_size = env_int("RS_RQ_SIZE");
	preload_env.inline_size = env_int("RS_INLINE");
	preload_env.fork_mode = env_int("RDMAV_FORK_SAFE") != 0;
	config_load(PRELOAD_CONFIG);
}

static pthread_once_t init_control = PTHREAD_ONCE_INIT;

/*
 * Every wrapper calls this (upstream only calls it from some, leaving the
 * others on null pointers until the first socket()); after the first call
 * it is one load and compare.
 */
void preload_init(void)
{
	pthread_once(&init_control, init_once);
}
