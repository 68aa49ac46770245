// SPDX-License-Identifier: MIT
/*
 * Fault injector, LD_PRELOADed into a scenario program.  It stands
 * between our libraries (libibverbs.so.1 with its built-in providers,
 * librdmacm.so.1) and libc, counts the calls they make of one kind and
 * makes the Nth fail:
 *
 *   FAULT_KIND=syscall  open, openat, fopen, ioctl, read, write, mmap,
 *                       socket, recv*, send*, poll, eventfd,
 *                       epoll_create1: -1 (NULL for fopen, MAP_FAILED for
 *                       mmap) with FAULT_ERRNO
 *   FAULT_KIND=malloc   malloc, calloc, realloc, strdup, posix_memalign:
 *                       NULL with ENOMEM (posix_memalign returns it)
 *   FAULT_KIND=short    read, recv, recvfrom, recvmsg: the call made with
 *                       half the buffer (a short read, a truncated
 *                       datagram)
 *   FAULT_AT=N          the call to fail, from 1; 0 (or unset) counts only
 *   FAULT_ERRNO=NAME    ENOMEM, EINTR, EIO, EAGAIN, EFAULT, or "rotate":
 *                       the Nth call gets the (N mod 5)th of these
 *   FAULT_LOG=FILE      gets "fired N KIND CALL ERRNO OBJECT+OFFSET" when
 *                       the fault fires (OFFSET: the return address, as
 *                       addr2line -e OBJECT takes it), and "counted syscall S malloc M
 *                       short R" from fault_stop(); when counting only,
 *                       "call KIND N CALL" for each call
 *
 * The scenario calls fault_stop() (found with dlsym) after its first,
 * faulted attempt: counting ends and nothing fails any more, so the
 * counts are those of one attempt and the next attempt runs clean.
 *
 * Only calls whose return address lies in our libraries' code count:
 * calls libc or libnl make on their behalf (getline's malloc, libnl's
 * socket in nl_connect) are theirs.  close() and
 * munmap() are never failed: nothing could retry them, and the leak checks
 * see what they free.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum kind { KIND_SYSCALL, KIND_MALLOC, KIND_SHORT, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = { "syscall", "malloc", "short" };

static const int rotation[] = { ENOMEM, EINTR, EIO, EAGAIN, EFAULT };
static const char *const rotation_names[] = { "ENOMEM", "EINTR", "EIO", "EAGAIN", "EFAULT" };

static enum kind fault_kind = KIND_SYSCALL;
static long fault_at;
static int fault_errno = -1;	/* -1: rotate */
static const char *fault_log;
static atomic_long counted[KIND_COUNT];
static atomic_bool stopped;

/* The executable segments of our libraries. */
struct range {
	uintptr_t base, start, end;	/* base: where the object's addresses start */
	char object[32];
};
static struct range ranges[8];
static atomic_int range_count;
static atomic_bool ranges_ready;

/* glibc's allocator under its own names: dlsym() itself allocates, so
 * malloc cannot be found through it. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = strrchr(info->dlpi_name, '/');

	(void)size;
	(void)data;
	name = name ? name + 1 : info->dlpi_name;
	if (strcmp(name, "libibverbs.so.1") && strcmp(name, "librdmacm.so.1"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		int n = atomic_load(&range_count);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || n == 8)
			continue;
		ranges[n].base = info->dlpi_addr;
		ranges[n].start = info->dlpi_addr + ph->p_vaddr;
		ranges[n].end = ranges[n].start + ph->p_memsz;
		snprintf(ranges[n].object, sizeof(ranges[n].object), "%s", name);
		atomic_store(&range_count, n + 1);
	}
	return 0;
}

/* The range holding a return address, or NULL if it is not ours. */
static const struct range *our_range(const void *ret)
{
	uintptr_t addr = (uintptr_t)ret;

	/* The libraries are linked into the scenario: loaded before any of
	 * their code can run, so one look suffices. */
	if (!atomic_load(&ranges_ready)) {
		static atomic_flag scanning = ATOMIC_FLAG_INIT;

		if (atomic_flag_test_and_set(&scanning))
			return NULL;	/* the scan's own allocations */
		dl_iterate_phdr(add_ranges, NULL);
		atomic_store(&ranges_ready, true);
	}
	for (int i = 0; i < atomic_load(&range_count); i++)
		if (addr >= ranges[i].start && addr < ranges[i].end)
			return &ranges[i];
	return NULL;
}

static void log_line(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, len;

	if (!fault_log)
		return;
	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open(fault_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)len) != len)
		fprintf(stderr, "injector: cannot write %s\n", fault_log);
	close(fd);
}

/* The calls that led here, for the log: "  at OBJECT+OFFSET" each. */
static void log_callers(void)
{
	void *frames[12];
	int n = backtrace(frames, 12);

	/* frames 0-2: this function, fire() and the interposer */
	for (int i = 3; i < n; i++) {
		Dl_info info;

		if (dladdr(frames[i], &info) && info.dli_fname)
			log_line("  at %s+0x%lx\n", strrchr(info.dli_fname, '/') ?
				 strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
				 (unsigned long)((uintptr_t)frames[i] - (uintptr_t)info.dli_fbase));
	}
}

/*
 * Whether this call, made from ret, is the one to fail; then *err is the
 * errno to give.  Counts every call of kind made from our code.
 */
static bool fire(enum kind kind, const char *call, const void *ret, int *err)
{
	const struct range *r = our_range(ret);
	long n;

	if (!r || atomic_load(&stopped))
		return false;
	n = atomic_fetch_add(&counted[kind], 1) + 1;
	if (!fault_at)
		log_line("call %s %ld %s\n", kind_names[kind], n, call);
	if (kind != fault_kind || n != fault_at)
		return false;
	*err = kind == KIND_MALLOC ? ENOMEM :
	       fault_errno >= 0 ? fault_errno : rotation[n % 5];
	log_line("fired %ld %s %s %s %s+0x%lx\n", n, kind_names[kind], call,
		 kind == KIND_SHORT ? "short" : strerrorname_np(*err), r->object,
		 (unsigned long)((uintptr_t)ret - r->base));
	log_callers();
	return true;
}

EXPORT void fault_stop(void)
{
	atomic_store(&stopped, true);
	log_line("counted syscall %ld malloc %ld short %ld\n", atomic_load(&counted[KIND_SYSCALL]),
		 atomic_load(&counted[KIND_MALLOC]), atomic_load(&counted[KIND_SHORT]));
}

__attribute__((constructor)) static void configure(void)
{
	const char *kind = getenv("FAULT_KIND"), *at = getenv("FAULT_AT");
	const char *err = getenv("FAULT_ERRNO");
	void *frame;

	fault_log = getenv("FAULT_LOG");
	for (int k = 0; kind && k < KIND_COUNT; k++)
		if (!strcmp(kind, kind_names[k]))
			fault_kind = (enum kind)k;
	fault_at = at ? atol(at) : 0;
	for (size_t i = 0; err && i < sizeof(rotation) / sizeof(rotation[0]); i++)
		if (!strcmp(err, rotation_names[i]))
			fault_errno = rotation[i];
	/* Programs the scenario runs (rdma, for the leak checks) are not
	 * under test; a fork()ed peer keeps the injector. */
	unsetenv("LD_PRELOAD");
	/* backtrace() loads libgcc_s when first called: now, in every run,
	 * so that its mappings are in the clean counts too */
	backtrace(&frame, 1);
}

/* The next definition of a libc function (not an allocator). */
#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

/* ---- syscalls ---------------------------------------------------- */

/* Whether this call from CALLER is the one to fail; if so errno is set
 * for the wrapper to return its failure value. */
static bool syscall_fails(const char *call, const void *caller)
{
	int err;

	if (!fire(KIND_SYSCALL, call, caller, &err))
		return false;
	errno = err;
	return true;
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

/* open and open64: the same call under two names (fopen uses the
 * second) */
static int open_call(int (*next)(const char *, int, ...), const void *caller, const char *path,
		     int flags, va_list ap)
{
	mode_t mode = mode_of(flags, ap);

	if (syscall_fails("open", caller))
		return -1;
	return next(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_call(NEXT(open64), __builtin_return_address(0), path, flags, ap);
	va_end(ap);
	return fd;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_call(NEXT(open), __builtin_return_address(0), path, flags, ap);
	va_end(ap);
	return fd;
}

EXPORT int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (syscall_fails("openat", __builtin_return_address(0)))
		return -1;
	return NEXT(openat)(dir, path, flags, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	if (syscall_fails("fopen", __builtin_return_address(0)))
		return NULL;
	return NEXT(fopen64)(path, mode);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	if (syscall_fails("fopen", __builtin_return_address(0)))
		return NULL;
	return NEXT(fopen)(path, mode);
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (syscall_fails("ioctl", __builtin_return_address(0)))
		return -1;
	return NEXT(ioctl)(fd, request, arg);
}

EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	if (syscall_fails("write", __builtin_return_address(0)))
		return -1;
	return NEXT(write)(fd, buf, count);
}

/* Half the length, when this read is the one to cut short. */
static size_t maybe_short(const char *call, const void *ret, size_t len)
{
	int err;

	return fire(KIND_SHORT, call, ret, &err) ? len / 2 : len;
}

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	if (syscall_fails("read", __builtin_return_address(0)))
		return -1;
	count = maybe_short("read", __builtin_return_address(0), count);
	return NEXT(read)(fd, buf, count);
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	if (syscall_fails("recv", __builtin_return_address(0)))
		return -1;
	len = maybe_short("recv", __builtin_return_address(0), len);
	return NEXT(recv)(fd, buf, len, flags);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
			socklen_t *fromlen)
{
	if (syscall_fails("recvfrom", __builtin_return_address(0)))
		return -1;
	len = maybe_short("recvfrom", __builtin_return_address(0), len);
	return NEXT(recvfrom)(fd, buf, len, flags, from, fromlen);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	size_t whole = msg->msg_iovlen ? msg->msg_iov[0].iov_len : 0;
	ssize_t got;

	if (syscall_fails("recvmsg", __builtin_return_address(0)))
		return -1;
	if (msg->msg_iovlen)
		msg->msg_iov[0].iov_len = maybe_short("recvmsg", __builtin_return_address(0), whole);
	got = NEXT(recvmsg)(fd, msg, flags);
	if (msg->msg_iovlen)
		msg->msg_iov[0].iov_len = whole;
	return got;
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	if (syscall_fails("send", __builtin_return_address(0)))
		return -1;
	return NEXT(send)(fd, buf, len, flags);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
		      socklen_t tolen)
{
	if (syscall_fails("sendto", __builtin_return_address(0)))
		return -1;
	return NEXT(sendto)(fd, buf, len, flags, to, tolen);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (syscall_fails("sendmsg", __builtin_return_address(0)))
		return -1;
	return NEXT(sendmsg)(fd, msg, flags);
}

EXPORT int socket(int domain, int type, int protocol)
{
	if (syscall_fails("socket", __builtin_return_address(0)))
		return -1;
	return NEXT(socket)(domain, type, protocol);
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (syscall_fails("poll", __builtin_return_address(0)))
		return -1;
	return NEXT(poll)(fds, n, timeout);
}

EXPORT int eventfd(unsigned int initval, int flags)
{
	if (syscall_fails("eventfd", __builtin_return_address(0)))
		return -1;
	return NEXT(eventfd)(initval, flags);
}

EXPORT int epoll_create1(int flags)
{
	if (syscall_fails("epoll_create1", __builtin_return_address(0)))
		return -1;
	return NEXT(epoll_create1)(flags);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (syscall_fails("mmap", __builtin_return_address(0)))
		return MAP_FAILED;
	return NEXT(mmap64)(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (syscall_fails("mmap", __builtin_return_address(0)))
		return MAP_FAILED;
	return NEXT(mmap)(addr, len, prot, flags, fd, off);
}

/* ---- allocations ------------------------------------------------- */

static bool malloc_fails(const char *call, const void *caller)
{
	int err;

	if (!fire(KIND_MALLOC, call, caller, &err))
		return false;
	errno = ENOMEM;
	return true;
}

EXPORT void *malloc(size_t size)
{
	if (malloc_fails("malloc", __builtin_return_address(0)))
		return NULL;
	return __libc_malloc(size);
}

EXPORT void *calloc(size_t n, size_t size)
{
	if (malloc_fails("calloc", __builtin_return_address(0)))
		return NULL;
	return __libc_calloc(n, size);
}

EXPORT void *realloc(void *ptr, size_t size)
{
	if (malloc_fails("realloc", __builtin_return_address(0)))
		return NULL;
	return __libc_realloc(ptr, size);
}

EXPORT char *strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy;

	if (malloc_fails("strdup", __builtin_return_address(0)))
		return NULL;
	copy = __libc_malloc(len);
	return copy ? memcpy(copy, s, len) : NULL;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	int err;

	if (fire(KIND_MALLOC, "posix_memalign", __builtin_return_address(0), &err))
		return ENOMEM;
	*out = __libc_memalign(align, size);
	return *out ? 0 : ENOMEM;
}
