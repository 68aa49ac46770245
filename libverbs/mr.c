/* SPDX-License-Identifier: MIT */
/*
 * Memory regions and windows.  Registered pages are kept out of fork()
 * children (ibv_dontfork_range) for the MR's lifetime; on-demand-paging
 * MRs pin nothing and are left alone.
 */
#include <errno.h>
#include <stdlib.h>

#include "fork.h"
#include "internal.h"

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, int access)
{
	const struct verbs_ops *ops = verbs_ops(pd->context);
	struct verbs_mr *mr;
	int ret;

	if (ops->reg_mr)
		return ops->reg_mr(pd, addr, length, iova, access);
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	ret = verbs_cmd_reg_mr(pd, addr, length, iova, access, mr, NULL);
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->ibv_mr;
}

/* Only MRs of this process's own memory that are not on-demand pin
 * pages, and so hold a fork-tree range. */
static bool pins_pages(enum verbs_mr_kind kind, int access)
{
	return kind == VERBS_MR_USER && !(access & IBV_ACCESS_ON_DEMAND);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	bool pins = pins_pages(VERBS_MR_USER, access);
	struct verbs_device *dev = verbs_get_device(pd->context->device);
	struct ibv_mr *mr;
	int err;

	/* Optional flags may be ignored, but kernels that do not say they
	 * understand them would reject them. */
	if (!(dev->core_support & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS))
		access &= ~IBV_ACCESS_OPTIONAL_RANGE;
	if (pins && ibv_dontfork_range(addr, length))
		return NULL;
	mr = reg_mr(pd, addr, length, iova, access);
	if (!mr) {
		err = errno;
		if (pins)
			ibv_dofork_range(addr, length);
		errno = err;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	return mr;
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, access);
}

#undef ibv_reg_mr_iova
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, access);
}

static int rereg_fail(int code, int err)
{
	errno = err;
	return code;
}

/*
 * The fork protection follows what the MR covers: the range it will cover
 * (if it will pin it) gets its reference before the command, and the one
 * it covered (if it pinned it) loses its reference only after the command
 * succeeded.  Pages covered before and after are never left unprotected,
 * and a refused command leaves every count as it was.
 */
int ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access)
{
	struct verbs_mr *mr = container_of(ibmr, struct verbs_mr, ibv_mr);
	const struct verbs_ops *ops = verbs_ops(ibmr->context);
	bool move = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	int new_access = flags & IBV_REREG_MR_CHANGE_ACCESS ? access : mr->access;
	/* Imported and dma-buf MRs moved here map memory of this process. */
	enum verbs_mr_kind new_kind = move ? VERBS_MR_USER : mr->kind;
	bool new_dontfork = pins_pages(new_kind, new_access);
	void *old_addr = ibmr->addr, *new_addr = move ? addr : old_addr;
	size_t old_length = ibmr->length, new_length = move ? length : old_length;
	/* Read before the command, which records the new access. */
	bool old_dontfork = pins_pages(mr->kind, mr->access);
	int ret;

	if (!flags || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    (move && (!addr || !length)) || ((flags & IBV_REREG_MR_CHANGE_PD) && !pd))
		return rereg_fail(IBV_REREG_MR_ERR_INPUT, EINVAL);
	if (new_dontfork && ibv_dontfork_range(new_addr, new_length))
		return rereg_fail(IBV_REREG_MR_ERR_DONT_FORK_NEW, errno);
	ret = ops->rereg_mr ? ops->rereg_mr(mr, flags, pd, addr, length, access)
			    : verbs_cmd_rereg_mr(mr, flags, pd, addr, length, access, NULL);
	if (ret) {
		if (new_dontfork && ibv_dofork_range(new_addr, new_length))
			return rereg_fail(IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW, ret);
		return rereg_fail(IBV_REREG_MR_ERR_CMD, ret);
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		ibmr->pd = pd;
	ibmr->addr = new_addr;
	ibmr->length = new_length;
	mr->access = new_access;
	mr->kind = new_kind;
	if (old_dontfork && ibv_dofork_range(old_addr, old_length))
		return rereg_fail(IBV_REREG_MR_ERR_DO_FORK_OLD, errno);
	return 0;
}

int ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct verbs_mr *mr = container_of(ibmr, struct verbs_mr, ibv_mr);
	const struct verbs_ops *ops = verbs_ops(ibmr->context);
	bool dontfork = pins_pages(mr->kind, mr->access);
	void *addr = ibmr->addr;
	size_t length = ibmr->length;
	int ret;

	if (ops->dereg_mr) {
		ret = ops->dereg_mr(mr);
	} else {
		ret = verbs_cmd_dereg_mr(mr);
		if (!ret)
			free(mr);
	}
	if (!ret && dontfork)
		ibv_dofork_range(addr, length);
	return ret;
}

/* MRs made by the core alone, for the calls no provider hook serves:
 * possible only where the provider keeps no MR state of its own (no
 * reg_mr).  new_core_mr() is NULL with errno; finish_core_mr() takes
 * the command's result and frees on failure. */
static struct verbs_mr *new_core_mr(struct ibv_pd *pd)
{
	if (verbs_ops(pd->context)->reg_mr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return calloc(1, sizeof(struct verbs_mr));
}

static struct ibv_mr *finish_core_mr(struct verbs_mr *mr, int ret)
{
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->ibv_mr;
}

/* An imported MR is what the kernel says of it. */
struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *mr;

	if (verbs_priv(pd->context)->plugin)
		return verbs_plugin_import_mr(pd, mr_handle);
	mr = new_core_mr(pd);
	return mr ? finish_core_mr(mr, verbs_cmd_query_mr(pd, mr_handle, mr)) : NULL;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (verbs_priv(mr->context)->plugin)
		verbs_plugin_unimport_mr(mr);
	else
		free(container_of(mr, struct verbs_mr, ibv_mr));
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				 uint64_t iova, int fd, int access)
{
	struct verbs_mr *mr;

	if (verbs_priv(pd->context)->plugin)
		return verbs_plugin_reg_dmabuf_mr(pd, offset, length, iova, fd, access);
	mr = new_core_mr(pd);
	return mr ? finish_core_mr(mr, verbs_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd,
								access, mr))
		  : NULL;
}

/* ------------------------------------------------------------------ */
/* Memory windows (ibv_alloc_mw and friends are inline, through
 * ibv_context_ops)                                                    */

struct ibv_mw *verbs_generic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw = calloc(1, sizeof(*mw));
	int ret;

	if (!mw)
		return NULL;
	ret = verbs_cmd_alloc_mw(pd, type, mw, NULL);
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int verbs_generic_dealloc_mw(struct ibv_mw *mw)
{
	int ret = verbs_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}
