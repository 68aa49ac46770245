/* SPDX-License-Identifier: MIT */
/*
 * tests/unit's fakes assert with check's macros, whose calls need check's
 * runner (they report every passing assertion to it through a pipe).
 * The fuzz targets run them without one: the link wraps the two calls
 * (-Wl,--wrap=_mark_point,--wrap=_ck_assert_failed) onto these, and an
 * assertion that fails aborts, which libFuzzer reports as a crash.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void __wrap__mark_point(const char *file, int line);
void __wrap__ck_assert_failed(const char *file, int line, const char *expr,
			      const char *msg, ...);

void __wrap__mark_point(const char *file, int line)
{
	(void)file, (void)line;
}

void __wrap__ck_assert_failed(const char *file, int line, const char *expr,
			      const char *msg, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: %s", file, line, expr);
	if (msg) {
		fputs(": ", stderr);
		va_start(ap, msg);
		vfprintf(stderr, msg, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	abort();
}
