/* SPDX-License-Identifier: MIT */
/* RDMA netlink replies, built here the way the kernel sends them, fed to
 * the discovery parser; and the request/answer loop, against the host's
 * rtnetlink, which every kernel has (RDMA netlink it may not). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include "netlink.h"
#include "unit.h"

static struct nl_msg *reply(int cmd)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0);

	ck_assert_ptr_nonnull(msg);
	return msg;
}

/* An RDMA_NLDEV_CMD_GET dump entry as kernel 6.1 sends it (the parser
 * must skip attributes it does not use). */
static struct nl_msg *device_msg(uint32_t index, const char *name)
{
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET);

	ck_assert_int_eq(nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index), 0);
	ck_assert_int_eq(nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, name), 0);
	ck_assert_int_eq(nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, 1), 0);
	ck_assert_int_eq(nla_put_u64(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234), 0);
	ck_assert_int_eq(nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, "1.2.3"), 0);
	ck_assert_int_eq(nla_put_u64(msg, RDMA_NLDEV_ATTR_NODE_GUID, 0x0200aabbccddeeffULL), 0);
	ck_assert_int_eq(nla_put_u64(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, 0x0200aabbccddeeffULL), 0);
	ck_assert_int_eq(nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 4), 0);
	ck_assert_int_eq(nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "iw"), 0);
	return msg;
}

START_TEST(device_entry)
{
	struct nl_msg *msg = device_msg(3, "siw0");
	struct verbs_sysfs_dev sysfs;

	memset(&sysfs, 0x5a, sizeof(sysfs));
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), 0);
	ck_assert_uint_eq(sysfs.ibdev_idx, 3);
	ck_assert_str_eq(sysfs.ibdev_name, "siw0");
	ck_assert_uint_eq(sysfs.node_guid, 0x0200aabbccddeeffULL);
	ck_assert_int_eq(sysfs.node_type, IBV_NODE_RNIC);
	/* Known only from the char device reply. */
	ck_assert_int_eq(sysfs.driver_id, RDMA_DRIVER_UNKNOWN);
	ck_assert_uint_eq(sysfs.abi_ver, 0);
	ck_assert_str_eq(sysfs.sysfs_name, "");
	ck_assert_uint_eq(sysfs.flags, VSYSFS_READ_NODE_GUID);
	ck_assert_uint_eq(sysfs.num_ports, 1);
	nlmsg_free(msg);
}
END_TEST

START_TEST(device_without_index_or_name_is_rejected)
{
	struct verbs_sysfs_dev sysfs;
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET);

	nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
	msg = reply(RDMA_NLDEV_CMD_GET);
	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
}
END_TEST

START_TEST(overlong_name_is_rejected)
{
	char name[100];
	struct verbs_sysfs_dev sysfs;
	struct nl_msg *msg;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	msg = device_msg(0, name);
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
}
END_TEST

START_TEST(wrongly_sized_attribute_is_rejected)
{
	struct verbs_sysfs_dev sysfs;
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET);
	uint16_t half = 1;

	nla_put(msg, RDMA_NLDEV_ATTR_DEV_INDEX, sizeof(half), &half);
	nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
}
END_TEST

START_TEST(unterminated_name_is_rejected)
{
	struct verbs_sysfs_dev sysfs;
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET);

	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	nla_put(msg, RDMA_NLDEV_ATTR_DEV_NAME, 4, "rxe0");
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
}
END_TEST

/* An attribute claiming more bytes than the message has ends the walk:
 * what came before it still counts, as with libnl. */
START_TEST(attribute_past_the_end_ends_the_walk)
{
	struct verbs_sysfs_dev sysfs;
	struct nl_msg *msg = device_msg(3, "siw0");
	struct nlattr *last;

	nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	last = (struct nlattr *)((char *)nlmsg_tail(nlmsg_hdr(msg)) - NLA_HDRLEN - 4);
	last->nla_len = 200;
	ck_assert_int_eq(verbs_nl_parse_device(nlmsg_hdr(msg), &sysfs), 0);
	ck_assert_str_eq(sysfs.ibdev_name, "siw0");
	ck_assert_uint_eq(sysfs.ibdev_idx, 3);
	nlmsg_free(msg);
}
END_TEST

/* The reply to GET_CHARDEV for rxe0 captured from kernel 6.1: the driver
 * id comes as a u32 although the UAPI header says u64. */
static struct nl_msg *chardev_msg(bool with_driver_id, uint64_t devnum)
{
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET_CHARDEV);

	if (with_driver_id)
		nla_put_u32(msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_RXE);
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV, devnum);
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, 2);
	nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME, "uverbs0");
	return msg;
}

START_TEST(chardev_reply)
{
	struct nl_msg *msg = chardev_msg(true, (231 << 8) | 192);
	struct verbs_sysfs_dev sysfs = { .ibdev_name = "rxe0", .ibdev_idx = 0 };

	ck_assert_int_eq(verbs_nl_parse_chardev(nlmsg_hdr(msg), &sysfs), 0);
	ck_assert_str_eq(sysfs.sysfs_name, "uverbs0");
	ck_assert_int_eq(sysfs.abi_ver, 2);
	ck_assert_int_eq(sysfs.driver_id, RDMA_DRIVER_RXE);
	ck_assert_uint_eq(major(sysfs.sysfs_cdev), 231);
	ck_assert_uint_eq(minor(sysfs.sysfs_cdev), 192);
	ck_assert_str_eq(sysfs.ibdev_name, "rxe0");	/* untouched */
	nlmsg_free(msg);
}
END_TEST

START_TEST(chardev_large_minor_and_no_driver_id)
{
	/* The kernel's encoding: minor bits above 8 sit above the major. */
	uint64_t enc = (300 << 8) | 0x34 | ((uint64_t)0x12 << 20);
	struct nl_msg *msg = chardev_msg(false, enc);
	struct verbs_sysfs_dev sysfs = { .driver_id = RDMA_DRIVER_UNKNOWN };

	ck_assert_int_eq(verbs_nl_parse_chardev(nlmsg_hdr(msg), &sysfs), 0);
	ck_assert_uint_eq(major(sysfs.sysfs_cdev), 300);
	ck_assert_uint_eq(minor(sysfs.sysfs_cdev), 0x1234);
	ck_assert_int_eq(sysfs.driver_id, RDMA_DRIVER_UNKNOWN);
	nlmsg_free(msg);
}
END_TEST

START_TEST(chardev_without_name_is_rejected)
{
	struct verbs_sysfs_dev sysfs = {};
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_GET_CHARDEV);

	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV, 1);
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, 1);
	ck_assert_int_eq(verbs_nl_parse_chardev(nlmsg_hdr(msg), &sysfs), EPROTO);
	nlmsg_free(msg);
}
END_TEST

/* RDMA_NLDEV_CMD_SYS_GET replies, as fork safety's copy-on-fork question
 * gets them: kernel 6.1 says it copies pinned pages into a child of
 * fork(); kernels before 5.12 do not say. */
static struct nl_msg *sys_msg(bool with_copy_on_fork)
{
	struct nl_msg *msg = reply(RDMA_NLDEV_CMD_SYS_GET);

	ck_assert_int_eq(nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1), 0);
	if (with_copy_on_fork)
		ck_assert_int_eq(nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1), 0);
	return msg;
}

START_TEST(sys_reply_says_copy_on_fork)
{
	struct nl_msg *msg = sys_msg(true);
	bool copies = false;

	ck_assert_int_eq(verbs_nl_parse_sys(nlmsg_hdr(msg), &copies), 0);
	ck_assert(copies);
	nlmsg_free(msg);
}
END_TEST

START_TEST(sys_reply_of_an_older_kernel_says_no_copy)
{
	struct nl_msg *msg = sys_msg(false);
	bool copies = true;

	ck_assert_int_eq(verbs_nl_parse_sys(nlmsg_hdr(msg), &copies), 0);
	ck_assert(!copies);
	nlmsg_free(msg);
}
END_TEST

START_TEST(sys_reply_with_empty_copy_on_fork_is_rejected)
{
	struct nl_msg *msg = sys_msg(false);
	bool copies = false;

	ck_assert_int_eq(nla_put(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 0, NULL), 0);
	ck_assert_int_eq(verbs_nl_parse_sys(nlmsg_hdr(msg), &copies), EPROTO);
	ck_assert(!copies);
	nlmsg_free(msg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The exchange: 0 or a positive errno, whatever went wrong            */

struct link_request {
	struct nlmsghdr hdr;
	struct ifinfomsg ifi;
};

static struct link_request link_request(int ifindex, uint16_t flags)
{
	return (struct link_request){
		.hdr = { .nlmsg_len = sizeof(struct link_request), .nlmsg_type = RTM_GETLINK,
			 .nlmsg_flags = NLM_F_REQUEST | flags },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex },
	};
}

static int route_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static int count_links(struct nlmsghdr *nlh, void *arg)
{
	if (nlh->nlmsg_type == RTM_NEWLINK)
		++*(int *)arg;
	return 0;
}

static int refuse_with_enomem(struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return ENOMEM;
}

static union {
	struct nlmsghdr hdr;
	char bytes[32768];
} answer;

START_TEST(exchange_reads_a_whole_dump)
{
	struct link_request req = link_request(0, NLM_F_DUMP);
	int fd = route_socket(), links = 0;

	ck_assert_int_eq(verbs_nl_exchange(fd, &req.hdr, &answer, sizeof(answer),
					   count_links, &links), 0);
	ck_assert_int_ge(links, 1);	/* lo, at least */
	close(fd);
}
END_TEST

START_TEST(exchange_returns_the_kernels_refusal)
{
	struct link_request req = link_request(INT_MAX, 0);
	int fd = route_socket(), links = 0;

	ck_assert_int_eq(verbs_nl_exchange(fd, &req.hdr, &answer, sizeof(answer),
					   count_links, &links), ENODEV);
	ck_assert_int_eq(links, 0);
	close(fd);
}
END_TEST

START_TEST(exchange_returns_the_callbacks_failure)
{
	struct link_request req = link_request(1, 0);	/* lo */
	int fd = route_socket();

	ck_assert_int_eq(verbs_nl_exchange(fd, &req.hdr, &answer, sizeof(answer),
					   refuse_with_enomem, NULL), ENOMEM);
	close(fd);
}
END_TEST

START_TEST(exchange_socket_failure_is_a_positive_errno)
{
	struct link_request req = link_request(1, 0);
	int links = 0;

	ck_assert_int_eq(verbs_nl_exchange(-1, &req.hdr, &answer, sizeof(answer),
					   count_links, &links), EBADF);
}
END_TEST

START_TEST(exchange_answer_larger_than_the_buffer_is_emsgsize)
{
	struct link_request req = link_request(1, 0);
	int fd = route_socket(), links = 0;
	struct nlmsghdr small[2];

	ck_assert_int_eq(verbs_nl_exchange(fd, &req.hdr, small, sizeof(small),
					   count_links, &links), EMSGSIZE);
	ck_assert_int_eq(links, 0);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netlink");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, device_entry);
	tcase_add_test(tc, device_without_index_or_name_is_rejected);
	tcase_add_test(tc, overlong_name_is_rejected);
	tcase_add_test(tc, wrongly_sized_attribute_is_rejected);
	tcase_add_test(tc, unterminated_name_is_rejected);
	tcase_add_test(tc, attribute_past_the_end_ends_the_walk);
	tcase_add_test(tc, chardev_reply);
	tcase_add_test(tc, chardev_large_minor_and_no_driver_id);
	tcase_add_test(tc, chardev_without_name_is_rejected);
	tcase_add_test(tc, sys_reply_says_copy_on_fork);
	tcase_add_test(tc, sys_reply_of_an_older_kernel_says_no_copy);
	tcase_add_test(tc, sys_reply_with_empty_copy_on_fork_is_rejected);
	suite_add_tcase(s, tc);
	tc = tcase_create("exchange");
	tcase_add_test(tc, exchange_reads_a_whole_dump);
	tcase_add_test(tc, exchange_returns_the_kernels_refusal);
	tcase_add_test(tc, exchange_returns_the_callbacks_failure);
	tcase_add_test(tc, exchange_socket_failure_is_a_positive_errno);
	tcase_add_test(tc, exchange_answer_larger_than_the_buffer_is_emsgsize);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
