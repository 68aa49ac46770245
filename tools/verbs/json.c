// SPDX-License-Identifier: MIT
#include "json.h"

#include <inttypes.h>

void json_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->first = true;
}

void json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* The separator and indentation before a new member, and its key. */
static void start_member(struct json_writer *w, const char *key)
{
	if (w->depth > 0)
		fputs(w->first ? "\n" : ",\n", w->out);
	for (unsigned int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
	if (key) {
		json_write_string(w->out, key);
		fputs(": ", w->out);
	}
	w->first = false;
}

static void begin(struct json_writer *w, const char *key, char open)
{
	start_member(w, key);
	fputc(open, w->out);
	w->depth++;
	w->first = true;
}

/* An empty container closes on its own line: "{}" reads as "[]" would. */
static void end(struct json_writer *w, char close)
{
	w->depth--;
	if (!w->first) {
		fputc('\n', w->out);
		for (unsigned int i = 0; i < w->depth; i++)
			fputs("  ", w->out);
	}
	fputc(close, w->out);
	w->first = false;
	if (w->depth == 0)
		fputc('\n', w->out);
}

void json_begin_object(struct json_writer *w, const char *key)
{
	begin(w, key, '{');
}

void json_end_object(struct json_writer *w)
{
	end(w, '}');
}

void json_begin_array(struct json_writer *w, const char *key)
{
	begin(w, key, '[');
}

void json_end_array(struct json_writer *w)
{
	end(w, ']');
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
	start_member(w, key);
	json_write_string(w->out, value);
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
	start_member(w, key);
	fprintf(w->out, "%" PRIu64, value);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
	start_member(w, key);
	fprintf(w->out, "%" PRId64, value);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
	start_member(w, key);
	fputs(value ? "true" : "false", w->out);
}
