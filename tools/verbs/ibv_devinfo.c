// SPDX-License-Identifier: MIT
/*
 * ibv_devinfo: the attributes of RDMA devices and their ports, as
 * upstream's 44 prints them (same options, output and exit statuses),
 * plus --json and --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devinfo.h"

/* Upstream's exit statuses. */
enum {
	EXIT_BAD_PORT_NUMBER = 1,	/* -i not a positive number */
	EXIT_NO_SUCH_PORT = 4,		/* -i beyond the device's ports */
	EXIT_FAILED = 255,		/* bad option, no such device, no devices */
};

struct options {
	const char *device_name;
	long port;			/* 0: every port */
	bool list;
	bool verbose;
	bool json;
};

static void usage(const char *argv0)
{
	printf("Usage: %s [options]\n"
	       "Print the attributes of RDMA devices and of their ports.\n\n"
	       "Options:\n"
	       "  -d, --ib-dev=<dev>     only device <dev> (default: every device)\n"
	       "  -i, --ib-port=<port>   only port <port> (default: every port)\n"
	       "  -l, --list             print only the names of the devices\n"
	       "  -v, --verbose          print every attribute, GIDs included\n"
	       "      --json             print every attribute (as -v) as JSON, see ibv_devinfo(1)\n"
	       "  -h, --help             print this help and exit\n", argv0);
}

/* Upstream's answers: usage and 255 for an option getopt refuses, usage
 * and 1 for a port that is no positive number; other arguments are
 * ignored.  Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *opt)
{
	enum { OPT_JSON = 256 };
	static const struct option long_options[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:i:lvh", long_options, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt->device_name = optarg;
			break;
		case 'i':
			opt->port = strtol(optarg, NULL, 0);
			if (opt->port <= 0 || opt->port > 255) {
				usage(argv[0]);
				return EXIT_BAD_PORT_NUMBER;
			}
			break;
		case 'l':
			opt->list = true;
			break;
		case 'v':
			opt->verbose = true;
			break;
		case OPT_JSON:
			opt->json = true;
			break;
		case 'h':
			usage(argv[0]);
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			return EXIT_FAILED;
		}
	}
	return -1;
}

static void print_list(struct ibv_device **devices, int count)
{
	printf("%d HCA%s found:\n", count, count == 1 ? "" : "s");
	for (int i = 0; i < count; i++)
		printf("\t%s\n", ibv_get_device_name(devices[i]));
	printf("\n");
}

static int query(struct ibv_device *device, const struct options *opt,
		 struct device_info *info)
{
	int ret = device_info_query(device, opt->port, info);

	if (ret == ENXIO) {
		fprintf(stderr, "Invalid port requested for device\n");
		return EXIT_NO_SUCH_PORT;
	}
	if (ret) {
		fprintf(stderr, "Failed to query device %s: %s\n",
			ibv_get_device_name(device), strerror(ret));
		return EXIT_FAILED;
	}
	return EXIT_SUCCESS;
}

/* JSON is printed once every device answered, so that it is whole. */
static int print_json(struct ibv_device **devices, int count, const struct options *opt)
{
	struct device_info *infos = calloc(count ? count : 1, sizeof(*infos));
	struct json_writer w;
	int status = EXIT_SUCCESS, done;

	if (!infos) {
		perror("ibv_devinfo");
		return EXIT_FAILED;
	}
	for (done = 0; done < count && status == EXIT_SUCCESS; done++)
		status = query(devices[done], opt, &infos[done]);
	if (status == EXIT_SUCCESS) {
		json_init(&w, stdout);
		json_begin_object(&w, NULL);
		json_uint(&w, "version", 1);
		json_begin_array(&w, "devices");
		for (int i = 0; i < count; i++)
			devinfo_print_json(&w, &infos[i]);
		json_end_array(&w);
		json_end_object(&w);
	}
	for (int i = 0; i < done; i++)
		device_info_free(&infos[i]);
	free(infos);
	return status;
}

/* Like upstream, a device that fails does not stop the others. */
static int print_text(struct ibv_device **devices, int count, const struct options *opt)
{
	int status = EXIT_SUCCESS;

	for (int i = 0; i < count; i++) {
		struct device_info info;
		int ret = query(devices[i], opt, &info);

		if (ret) {
			status = ret;
			continue;
		}
		devinfo_print_text(&info, opt->verbose);
		device_info_free(&info);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	struct ibv_device **devices, **selected;
	int count, status;

	status = parse_options(argc, argv, &opt);
	if (status >= 0)
		return status;

	devices = ibv_get_device_list(&count);
	if (!devices) {
		perror("Failed to get IB devices list");
		return EXIT_FAILED;
	}
	selected = devices;
	if (!count && !opt.list && !opt.device_name) {
		fprintf(stderr, "No IB devices found\n");
		ibv_free_device_list(devices);
		return EXIT_FAILED;
	}
	if (opt.device_name && !opt.list) {
		while (*selected && strcmp(ibv_get_device_name(*selected), opt.device_name))
			selected++;
		if (!*selected) {
			fprintf(stderr, "IB device '%s' wasn't found\n", opt.device_name);
			ibv_free_device_list(devices);
			return EXIT_FAILED;
		}
		count = 1;
	}
	status = EXIT_SUCCESS;
	if (opt.list)
		print_list(devices, count);
	else if (opt.json)
		status = print_json(selected, count, &opt);
	else
		status = print_text(selected, count, &opt);
	ibv_free_device_list(devices);
	return status;
}
