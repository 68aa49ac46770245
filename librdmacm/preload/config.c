// SPDX-License-Identifier: MIT
/*
 * preload_config (PRELOAD.md 3): "program domain type protocol" rules, `*`
 * a wildcard anywhere.  No valid rule: every socket() is a candidate.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preload.h"

#define ANY -1

struct rule {
	char program[64];	/* "" for `*` */
	int domain, type, protocol;
};

static struct rule *rules;
static size_t rule_count;

struct name_value {
	const char *name;
	int value;
};

static const struct name_value domains[] = {
	{"INET", AF_INET}, {"AF_INET", AF_INET}, {"PF_INET", AF_INET},
	{"INET6", AF_INET6}, {"AF_INET6", AF_INET6}, {"PF_INET6", AF_INET6},
	{"IB", AF_IB}, {"AF_IB", AF_IB}, {"PF_IB", AF_IB},
	{NULL, 0}
};

static const struct name_value types[] = {
	{"STREAM", SOCK_STREAM}, {"SOCK_STREAM", SOCK_STREAM},
	{"DGRAM", SOCK_DGRAM}, {"SOCK_DGRAM", SOCK_DGRAM},
	{NULL, 0}
};

static const struct name_value protocols[] = {
	{"TCP", IPPROTO_TCP}, {"IPPROTO_TCP", IPPROTO_TCP},
	{"UDP", IPPROTO_UDP}, {"IPPROTO_UDP", IPPROTO_UDP},
	{NULL, 0}
};

/* `*` -> ANY; a known name -> its value; else false (the line is skipped). */
static bool parse_token(const char *token, const struct name_value *names, int *value)
{
	if (!strcmp(token, "*")) {
		*value = ANY;
		return true;
	}
	for (; names->name; names++) {
		if (!strcasecmp(token, names->name)) {
			*value = names->value;
			return true;
		}
	}
	return false;
}

static bool parse_rule(const char *line, struct rule *rule)
{
	char domain[16], type[16], protocol[16];

	if (sscanf(line, "%63s %15s %15s %15s", rule->program, domain, type, protocol) != 4)
		return false;
	if (!strcmp(rule->program, "*"))
		rule->program[0] = '\0';
	return parse_token(domain, domains, &rule->domain) &&
	       parse_token(type, types, &rule->type) &&
	       parse_token(protocol, protocols, &rule->protocol);
}

void config_load(const char *path)
{
	char line[121];
	struct rule rule, *grown;
	FILE *file = fopen(path, "re");

	if (!file)
		return;
	while (fgets(line, sizeof(line), file)) {
		if (line[0] == '#' || !parse_rule(line, &rule))
			continue;
		grown = realloc(rules, (rule_count + 1) * sizeof(*rules));
		if (!grown)
			break;
		rules = grown;
		rules[rule_count++] = rule;
	}
	fclose(file);
}

static bool field_matches(int rule_value, int value)
{
	return rule_value == ANY || rule_value == value;
}

/*
 * type is the base type: unlike upstream, SOCK_NONBLOCK/SOCK_CLOEXEC do not
 * keep a socket from matching, since this preload carries them over.
 */
bool config_wants(int domain, int type, int protocol)
{
	size_t i;

	if (!rule_count)
		return true;
	if (!protocol)
		protocol = type == SOCK_STREAM ? IPPROTO_TCP :
			   type == SOCK_DGRAM ? IPPROTO_UDP : 0;
	for (i = 0; i < rule_count; i++) {
		const struct rule *r = &rules[i];

		if (strncasecmp(r->program, program_invocation_short_name, strlen(r->program)))
			continue;
		if (field_matches(r->domain, domain) && field_matches(r->type, type) &&
		    field_matches(r->protocol, protocol))
			return true;
	}
	return false;
}
