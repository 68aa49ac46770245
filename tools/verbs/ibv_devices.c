// SPDX-License-Identifier: MIT
/*
 * ibv_devices: the RDMA devices and their node GUIDs, as upstream's 44
 * prints them.  Upstream takes no options and ignores its arguments; so
 * do we, but for --json and --help, which are ours.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "json.h"

static void usage(const char *argv0)
{
	printf("Usage: %s [--json]\n"
	       "List the RDMA devices and their node GUIDs.\n\n"
	       "Options:\n"
	       "      --json   print the list as JSON, see ibv_devices(1)\n"
	       "      --help   print this help and exit\n"
	       "Other arguments are ignored.\n", argv0);
}

static void print_text(struct ibv_device **devices)
{
	printf("    %-16s\t   node GUID\n", "device");
	printf("    %-16s\t----------------\n", "------");
	for (; *devices; devices++)
		printf("    %-16s\t%016" PRIx64 "\n", ibv_get_device_name(*devices),
		       be64toh(ibv_get_device_guid(*devices)));
}

static void print_json(struct ibv_device **devices)
{
	struct json_writer w;
	char guid[17];

	json_init(&w, stdout);
	json_begin_object(&w, NULL);
	json_uint(&w, "version", 1);
	json_begin_array(&w, "devices");
	for (; *devices; devices++) {
		snprintf(guid, sizeof(guid), "%016" PRIx64,
			 be64toh(ibv_get_device_guid(*devices)));
		json_begin_object(&w, NULL);
		json_string(&w, "device", ibv_get_device_name(*devices));
		json_string(&w, "node_guid", guid);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
}

int main(int argc, char **argv)
{
	struct ibv_device **devices;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage(argv[0]);
			return EXIT_SUCCESS;
		}
		if (!strcmp(argv[i], "--json"))
			json = true;
	}
	devices = ibv_get_device_list(NULL);
	if (!devices) {
		perror("Failed to get IB devices list");
		return EXIT_FAILURE;
	}
	if (json)
		print_json(devices);
	else
		print_text(devices);
	ibv_free_device_list(devices);
	return EXIT_SUCCESS;
}
