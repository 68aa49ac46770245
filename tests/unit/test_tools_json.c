/* SPDX-License-Identifier: MIT */
/*
 * The tools' JSON writer (tools/verbs/json.c): string escaping, nesting,
 * commas and indentation, and 64-bit numbers printed exactly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "unit.h"

/* Runs WRITE on a writer over a memory stream and returns what it wrote
 * (the caller frees it). */
static char *written(void (*write)(struct json_writer *))
{
	struct json_writer w;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	json_init(&w, out);
	write(&w);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

static void write_string_escapes(struct json_writer *w)
{
	json_write_string(w->out, "a\"b\\c\nd\te\rf\x01g\x7fh\xe9");
}

START_TEST(string_escapes)
{
	char *text = written(write_string_escapes);

	ck_assert_str_eq(text, "\"a\\\"b\\\\c\\nd\\te\\rf\\u0001g\\u007fh\\u00e9\"");
	free(text);
}
END_TEST

static void write_document(struct json_writer *w)
{
	json_begin_object(w, NULL);
	json_uint(w, "version", 1);
	json_uint(w, "big", UINT64_MAX);
	json_int(w, "negative", INT64_MIN);
	json_bool(w, "yes", true);
	json_begin_array(w, "list");
	json_string(w, NULL, "x");
	json_begin_object(w, NULL);
	json_string(w, "key \"q\"", "v");
	json_end_object(w);
	json_end_array(w);
	json_begin_array(w, "empty");
	json_end_array(w);
	json_begin_object(w, "nothing");
	json_end_object(w);
	json_end_object(w);
}

START_TEST(nesting_and_numbers)
{
	char *text = written(write_document);

	ck_assert_str_eq(text,
		"{\n"
		"  \"version\": 1,\n"
		"  \"big\": 18446744073709551615,\n"
		"  \"negative\": -9223372036854775808,\n"
		"  \"yes\": true,\n"
		"  \"list\": [\n"
		"    \"x\",\n"
		"    {\n"
		"      \"key \\\"q\\\"\": \"v\"\n"
		"    }\n"
		"  ],\n"
		"  \"empty\": [],\n"
		"  \"nothing\": {}\n"
		"}\n");
	free(text);
}
END_TEST

static void write_two_documents(struct json_writer *w)
{
	json_begin_array(w, NULL);
	json_end_array(w);
	json_begin_object(w, NULL);
	json_bool(w, "b", false);
	json_end_object(w);
}

/* A writer back at depth 0 starts a new document on its own line. */
START_TEST(documents_in_sequence)
{
	char *text = written(write_two_documents);

	ck_assert_str_eq(text, "[]\n{\n  \"b\": false\n}\n");
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tools_json");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, string_escapes);
	tcase_add_test(tc, nesting_and_numbers);
	tcase_add_test(tc, documents_in_sequence);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
