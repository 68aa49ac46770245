/* SPDX-License-Identifier: MIT */
/* The siw provider: registration, contexts, memory regions, mapping. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "siw.h"

int siw_map(int cmd_fd, uint64_t key, size_t size, void **queue)
{
	void *p;

	if (key == SIW_INVAL_UOBJ_KEY || !size)
		return EPROTO;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd, (off_t)key);
	if (p == MAP_FAILED)
		return errno;
	*queue = p;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory regions: the kernel wants its request and response, which
 * let user space choose the low byte of the key; we leave it 0. */

static struct ibv_mr *siw_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t iova, int access)
{
	struct siw_ureq_reg_mr req = {};
	struct siw_uresp_reg_mr resp;
	struct verbs_udata udata = { &req, sizeof(req), &resp, sizeof(resp) };
	struct verbs_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	ret = verbs_cmd_reg_mr(pd, addr, length, iova, access, mr, &udata);
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->ibv_mr;
}

static int siw_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd, void *addr,
			size_t length, int access)
{
	return verbs_cmd_rereg_mr(mr, flags, pd, addr, length, access, NULL);
}

static int siw_dereg_mr(struct verbs_mr *mr)
{
	int ret = verbs_cmd_dereg_mr(mr);

	if (!ret)
		free(mr);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

static const struct verbs_ops siw_ops = {
	.reg_mr = siw_reg_mr,
	.rereg_mr = siw_rereg_mr,
	.dereg_mr = siw_dereg_mr,
	.create_cq = siw_create_cq,
	.poll_cq = siw_poll_cq,
	.req_notify_cq = siw_req_notify_cq,
	.destroy_cq = siw_destroy_cq,
	.create_srq_ex = siw_create_srq_ex,
	.modify_srq = siw_modify_srq,
	.destroy_srq = siw_destroy_srq,
	.post_srq_recv = siw_post_srq_recv,
	.create_qp_ex = siw_create_qp_ex,
	.modify_qp = siw_modify_qp,
	.destroy_qp = siw_destroy_qp,
	.post_send = siw_post_send,
	.post_recv = siw_post_recv,
};

/* The kernel's siw cannot describe a context to a second process (it has
 * no query_ucontext), so there is no import_context. */
static struct verbs_context *siw_alloc_context(struct verbs_device *dev, int cmd_fd,
					       void *private_data)
{
	struct siw_uresp_alloc_ctx resp;
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };

	(void)private_data;
	return verbs_plain_context(dev, cmd_fd, &siw_ops, &udata);
}

static const char *const siw_ibdev_patterns[] = { "siw*", NULL };

/* Listed in the generated table of built-in providers (-Dproviders). */
const struct verbs_provider verbs_provider_siw = {
	.name = "siw",
	.driver_id = RDMA_DRIVER_SIW,
	.ibdev_patterns = siw_ibdev_patterns,
	.min_abi = SIW_ABI_VERSION,
	.max_abi = SIW_ABI_VERSION,
	.alloc_context = siw_alloc_context,
	.free_context = verbs_free_plain_context,
};
