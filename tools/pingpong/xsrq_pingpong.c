// SPDX-License-Identifier: MIT
/*
 * ibv_xsrq_pingpong: the XRC ping-pong.  Only its front is here: the
 * options, the device and the XRC domain, whose failure on a device
 * without XRC (rxe, siw: every device this project can test on) is
 * reported in upstream's words and exit status.  With an XRC domain in
 * hand it stops and says the XRC exchange itself is not implemented:
 * no device here could test it, so it is left out rather than shipped
 * untried (see the man page).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "pingpong.h"

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "size", required_argument, NULL, 's' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "clients", required_argument, NULL, 'c' },
	{ "num_tests", required_argument, NULL, 'n' },
	{ "sl", required_argument, NULL, 'l' },
	{ "events", no_argument, NULL, 'e' },
	{ "odp", no_argument, NULL, 'o' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ 0 },
};

static void usage(const char *argv0)
{
	printf("Usage:\n");
	printf("  %s            start a server and wait for connection\n", argv0);
	printf("  %s <host>     connect to server at <host>\n\n", argv0);
	printf("Options:\n"
	       "  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
	       "  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n"
	       "  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n"
	       "  -s, --size=<size>      size of message to exchange (default 4096)\n"
	       "  -m, --mtu=<size>       path MTU (default 2048)\n"
	       "  -c, --clients=<n>      number of clients (on server only, default 1)\n"
	       "  -n, --num_tests=<n>    number of tests per client (default 5)\n"
	       "  -l, --sl=<sl>          service level value\n"
	       "  -e, --events           sleep on CQ events (default poll)\n"
	       "  -o, --odp\t\t    use on demand paging\n"
	       "  -g, --gid-idx=<gid index> local port gid index\n");
}

int main(int argc, char *argv[])
{
	struct pp_options opts = {
		.tcp_port = 18515,
		.ib_port = 1,
		.size = 4096,
		.mtu = IBV_MTU_2048,
		.iters = 5,
		.gidx = -1,
	};
	struct ibv_xrcd_init_attr xrcd_attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_context *context;
	struct ibv_xrcd *xrcd;
	int letter;

	while ((letter = getopt_long(argc, argv, "p:d:i:s:m:c:n:l:eog:",
				     longopts, NULL)) != -1) {
		/* -c is the client count here, not -c's buffer check */
		if (letter == 'c') {
			if (strtol(optarg, NULL, 0) < 1) {
				usage(argv[0]);
				return 1;
			}
		} else if (letter != 'o' && !pp_common_option(&opts, letter, optarg)) {
			usage(argv[0]);
			return 1;
		}
	}
	if (!pp_take_servername(&opts, argc, argv)) {
		usage(argv[0]);
		return 1;
	}
	context = pp_open_device(opts.ib_devname);
	if (!context)
		return 1;
	xrcd = ibv_open_xrcd(context, &xrcd_attr);
	if (!xrcd) {
		fprintf(stderr, "Couldn't Open the XRC Domain %d\n", errno);
	} else {
		fprintf(stderr, "%s: the XRC ping-pong itself is not implemented\n",
			program_invocation_short_name);
		ibv_close_xrcd(xrcd);
	}
	ibv_close_device(context);
	return 1;
}
