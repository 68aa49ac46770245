/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer for the tools' --json output: indented
 * two spaces a level, one member a line, keys in the order written.  The
 * caller nests begin/end calls correctly; a KEY is given inside objects
 * and is NULL inside arrays.
 */
#ifndef TOOLS_VERBS_JSON_H
#define TOOLS_VERBS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool first;	/* nothing written yet at this depth */
};

void json_init(struct json_writer *w, FILE *out);
void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_bool(struct json_writer *w, const char *key, bool value);

/* Writes S as a JSON string literal, quotes included.  Bytes outside
 * printable ASCII are escaped as \u00XX (read as Latin-1), so that the
 * output stays valid UTF-8 whatever a driver reports. */
void json_write_string(FILE *out, const char *s);

#endif
