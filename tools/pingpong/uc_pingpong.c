// SPDX-License-Identifier: MIT
/* ibv_uc_pingpong: the one-QP ping-pong over an unreliable connected QP. */
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
	{ "chk", no_argument, NULL, 'c' },
	{ 0 },
};

static const struct one_qp_program uc = {
	.qp_type = IBV_QPT_UC,
	.default_size = 4096,
	.optstring = "p:d:i:s:m:r:n:l:eg:c",
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
	"  -c, --chk              validate received buffer\n",
};

int main(int argc, char *argv[])
{
	return one_qp_main(&uc, argc, argv);
}
