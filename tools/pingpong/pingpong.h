/* SPDX-License-Identifier: MIT */
/*
 * What the ibv_*_pingpong programs share: the options every one of them
 * takes, opening the device, the out-of-band TCP exchange of addresses
 * (one fixed-size text message per QP, the format upstream's programs put
 * on the wire), address and result lines, and the receive-buffer check
 * of -c.  Functions here print their own error and return false or NULL;
 * the programs turn that into exit status 1.
 */
#ifndef OPENVERBS_TOOLS_PINGPONG_H
#define OPENVERBS_TOOLS_PINGPONG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>

#include <infiniband/verbs.h>

/* Work request ids: which kind of completion came back. */
enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

/* The Q_Key both sides of ibv_ud_pingpong use. */
#define PP_UD_QKEY 0x11111111

/* The options all programs share; each sets its own defaults first. */
struct pp_options {
	const char *servername;
	const char *ib_devname;
	int tcp_port;
	int ib_port;
	unsigned int size;
	bool size_given;	/* -s: a UD size that will not fit is refused */
	enum ibv_mtu mtu;
	unsigned int rx_depth;
	unsigned int iters;
	int sl;
	int gidx;
	bool use_events;
	bool validate;
};

/* A QP's address as the peer needs it to reach the QP. */
struct pp_dest {
	uint16_t lid;
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
};

/*
 * Handles an option letter every program reads the same way (-p -d -i -s
 * -m -r -n -l -e -g -c); false for a letter it does not know or a value
 * upstream's programs refuse (the caller prints its usage).
 */
bool pp_common_option(struct pp_options *opts, int letter, const char *arg);

/*
 * Takes the optional server name after the options; false (caller prints
 * usage) when more than one is left.
 */
bool pp_take_servername(struct pp_options *opts, int argc, char *argv[]);

enum ibv_mtu pp_mtu_from_size(unsigned long size);

/*
 * The named device (or the first one) opened; NULL after printing why.
 */
struct ibv_context *pp_open_device(const char *ib_devname);

/* Fills dest's LID and GID from port `ib_port` and gid index `gidx`
 * (none when negative); refuses an IB port without a LID. */
bool pp_local_address(struct ibv_context *context, int ib_port, int gidx,
		      struct ibv_port_attr *port_attr, struct pp_dest *dest);

uint32_t pp_random_psn(void);

void pp_print_dest(const char *which, const struct pp_dest *dest, char after_psn);

/*
 * The out-of-band exchange over TCP.  A client connects, sends its
 * `count` addresses, reads the server's and answers "done"; a server
 * accepts one connection, reads the client's, calls `connect_qps` (its
 * QPs must be ready before the client may send), sends its own and waits
 * for the "done".  Returns the connected socket (>= 0), or -1 after
 * printing why.
 */
int pp_exchange_client(const struct pp_options *opts, const struct pp_dest *local,
		       struct pp_dest *remote, unsigned int count);
int pp_exchange_server(const struct pp_options *opts, const struct pp_dest *local,
		       struct pp_dest *remote, unsigned int count,
		       bool (*connect_qps)(void *arg, const struct pp_dest *remote),
		       void *arg);

/* The address handle attributes that reach `remote` from port `ib_port`
 * (through GID index `gidx` when the peer sent a GID). */
void pp_remote_ah(struct ibv_ah_attr *ah, const struct pp_dest *remote,
		  int sl, int ib_port, int gidx);

/* Timing and the two result lines every program ends with. */
void pp_print_result(const struct timeval *start, unsigned long long bytes,
		     unsigned int iters);

/*
 * The message contents: 0x7b bytes, with the first of every page zero
 * when `marked` (-c), as upstream's senders do.  -c checks, once the
 * exchanges are over, that the last message received was marked, and
 * names each page that was not (a warning, as upstream's: the exit
 * status stays 0).
 */
void pp_fill_buffer(void *buf, unsigned int size, unsigned int page_size, bool marked);
void pp_check_buffer(const void *buf, unsigned int size, unsigned int page_size);

/* ibv_wc_status_str with the numeric status, the way every program reports
 * a failed completion. */
void pp_print_bad_wc(const struct ibv_wc *wc);

/* Waits for and acknowledges one completion event on cq (-e). */
bool pp_wait_cq_event(struct ibv_comp_channel *channel, struct ibv_cq *cq,
		      unsigned int *unacked);

#endif
