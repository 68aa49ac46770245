// SPDX-License-Identifier: MIT
/* ibv_rc_pingpong: the one-QP ping-pong over a reliable connected QP. */
#include "one_qp.h"

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "size", required_argument, NULL, 's' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "iters", required_argument, NULL, 'n' },
	{ "sl", required_argument, NULL, 'l' },
	{ "events", no_argument, NULL, 'e' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ "odp", no_argument, NULL, 'o' },
	{ "iodp", no_argument, NULL, 'O' },
	{ "prefetch", no_argument, NULL, 'P' },
	{ "ts", no_argument, NULL, 't' },
	{ "chk", no_argument, NULL, 'c' },
	{ "dm", no_argument, NULL, 'j' },
	{ "new_send", no_argument, NULL, 'N' },
	{ 0 },
};

static const struct one_qp_program rc = {
	.qp_type = IBV_QPT_RC,
	.default_size = 4096,
	.optstring = "p:d:i:s:m:r:n:l:eg:oOPtcjN",
	.longopts = longopts,
	.usage =
	"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
	"  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n"
	"  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n"
	"  -s, --size=<size>      size of message to exchange (default 4096)\n"
	"  -m, --mtu=<size>       path MTU (default 1024)\n"
	"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
	"  -n, --iters=<iters>    number of exchanges (default 1000)\n"
	"  -l, --sl=<sl>          service level value\n"
	"  -e, --events           sleep on CQ events (default poll)\n"
	"  -g, --gid-idx=<gid index> local port gid index\n"
	"  -o, --odp\t\t    use on demand paging\n"
	"  -O, --iodp\t\t    use implicit on demand paging\n"
	"  -P, --prefetch\t    prefetch an ODP MR\n"
	"  -t, --ts\t            get CQE with timestamp\n"
	"  -c, --chk\t            validate received buffer\n"
	"  -j, --dm\t            use device memory\n"
	"  -N, --new_send            use new post send WR API\n",
};

int main(int argc, char *argv[])
{
	return one_qp_main(&rc, argc, argv);
}
