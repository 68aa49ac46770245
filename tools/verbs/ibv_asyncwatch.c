// SPDX-License-Identifier: MIT
/*
 * ibv_asyncwatch: prints the asynchronous events of one RDMA device (port
 * up and down, GID changes, fatal errors) as they come, in upstream's 44
 * words, until it is killed.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static void usage(const char *argv0)
{
	printf("Usage: %s [options]\n"
	       "Print the asynchronous events of an RDMA device as they happen,\n"
	       "one a line, until interrupted.\n\n"
	       "Options:\n"
	       "  -d, --ib-dev=<dev>     watch device <dev> (default: the first one)\n"
	       "  -h, --help             print this help and exit\n", argv0);
}

/* The enumerator's own name, not ibv_event_type_str()'s words: that is
 * what upstream's ibv_asyncwatch prints. */
static const char *event_name(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR: return "IBV_EVENT_CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "IBV_EVENT_QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "IBV_EVENT_QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "IBV_EVENT_QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "IBV_EVENT_COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "IBV_EVENT_SQ_DRAINED";
	case IBV_EVENT_PATH_MIG: return "IBV_EVENT_PATH_MIG";
	case IBV_EVENT_PATH_MIG_ERR: return "IBV_EVENT_PATH_MIG_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "IBV_EVENT_DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "IBV_EVENT_PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "IBV_EVENT_PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "IBV_EVENT_LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "IBV_EVENT_PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "IBV_EVENT_SM_CHANGE";
	case IBV_EVENT_SRQ_ERR: return "IBV_EVENT_SRQ_ERR";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "IBV_EVENT_SRQ_LIMIT_REACHED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "IBV_EVENT_QP_LAST_WQE_REACHED";
	case IBV_EVENT_CLIENT_REREGISTER: return "IBV_EVENT_CLIENT_REREGISTER";
	case IBV_EVENT_GID_CHANGE: return "IBV_EVENT_GID_CHANGE";
	case IBV_EVENT_WQ_FATAL: return "IBV_EVENT_WQ_FATAL";
	default: return "unknown";
	}
}

static bool is_port_event(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

/* Each line is flushed: the watcher's output is usually a pipe or file
 * read while it runs. */
static int watch(struct ibv_context *context)
{
	struct ibv_async_event event;

	printf("%s: async event FD %d\n", ibv_get_device_name(context->device),
	       context->async_fd);
	fflush(stdout);
	while (!ibv_get_async_event(context, &event)) {
		printf("  event_type %s (%d), ", event_name(event.event_type),
		       event.event_type);
		if (is_port_event(event.event_type))
			printf("port %d\n", event.element.port_num);
		else
			printf("device\n");
		fflush(stdout);
		ibv_ack_async_event(&event);
	}
	perror("ibv_get_async_event");
	return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ibv_device **devices, **device;
	struct ibv_context *context;
	const char *name = NULL;
	int c, status;

	while ((c = getopt_long(argc, argv, "d:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'd':
			name = optarg;
			break;
		case 'h':
			usage(argv[0]);
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			return EXIT_FAILURE;
		}
	}

	devices = ibv_get_device_list(NULL);
	if (!devices) {
		perror("Failed to get IB devices list");
		return EXIT_FAILURE;
	}
	device = devices;
	if (name)
		while (*device && strcmp(ibv_get_device_name(*device), name))
			device++;
	if (!*device) {
		if (name)
			fprintf(stderr, "IB device %s not found\n", name);
		else
			fprintf(stderr, "No IB devices found\n");
		ibv_free_device_list(devices);
		return EXIT_FAILURE;
	}
	context = ibv_open_device(*device);
	if (!context) {
		fprintf(stderr, "Couldn't get context for %s\n", ibv_get_device_name(*device));
		ibv_free_device_list(devices);
		return EXIT_FAILURE;
	}
	status = watch(context);
	ibv_close_device(context);
	ibv_free_device_list(devices);
	return status;
}
