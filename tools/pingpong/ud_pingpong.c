// SPDX-License-Identifier: MIT
/* ibv_ud_pingpong: the one-QP ping-pong over an unreliable datagram QP. */
#include "one_qp.h"

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "size", required_argument, NULL, 's' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "iters", required_argument, NULL, 'n' },
	{ "sl", required_argument, NULL, 'l' },
	{ "events", no_argument, NULL, 'e' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ "chk", no_argument, NULL, 'c' },
	{ 0 },
};

static const struct one_qp_program ud = {
	.qp_type = IBV_QPT_UD,
	.default_size = 2048,
	.optstring = "p:d:i:s:r:n:l:eg:c",
	.longopts = longopts,
	.usage =
	"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
	"  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n"
	"  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n"
	"  -s, --size=<size>      size of message to exchange (default 2048)\n"
	"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
	"  -n, --iters=<iters>    number of exchanges (default 1000)\n"
	"  -l, --sl=<SL>          send messages with service level <SL> (default 0)\n"
	"  -e, --events           sleep on CQ events (default poll)\n"
	"  -g, --gid-idx=<gid index> local port gid index\n"
	"  -c, --chk              validate received buffer\n",
};

int main(int argc, char *argv[])
{
	return one_qp_main(&ud, argc, argv);
}
