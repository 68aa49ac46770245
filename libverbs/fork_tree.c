/* SPDX-License-Identifier: MIT */
/*
 * Fork safety's interval tree: per-page reference counts kept as a
 * red-black tree of disjoint, page-aligned ranges, also hashed by start
 * address, and the madvise() calls for the pages whose count crosses
 * 0 <-> 1 (see fork.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fork.h"

/* ---- Hash index by start address ---- */

static size_t bucket(const struct fork_tree *t, uintptr_t start)
{
	return (uint64_t)start * 0x9e3779b97f4a7c15ull >> (64 - t->by_start_bits);
}

static void hash_in(struct fork_tree *t, struct fork_range *n)
{
	struct fork_range **head = &t->by_start[bucket(t, n->start)];

	n->hash_next = *head;
	*head = n;
}

/* Doubles the table and rehashes every range; false if out of memory, when
 * the old table (if any) stays, only with longer chains. */
static bool grow(struct fork_tree *t)
{
	unsigned int bits = t->by_start_bits ? t->by_start_bits + 1 : 6;
	struct fork_range **table = calloc((size_t)1 << bits, sizeof(*table));
	struct fork_range *n = t->root;

	if (!table)
		return false;
	free(t->by_start);
	t->by_start = table;
	t->by_start_bits = bits;
	while (n && n->left)
		n = n->left;
	for (; n; n = n->next)
		hash_in(t, n);
	return true;
}

/* Called with n already linked in the tree and its list. */
static void index_add(struct fork_tree *t, struct fork_range *n)
{
	t->nranges++;
	if ((!t->by_start || t->nranges > (size_t)1 << t->by_start_bits) && grow(t))
		return;
	if (t->by_start)
		hash_in(t, n);
}

static void index_del(struct fork_tree *t, struct fork_range *n)
{
	struct fork_range **p;

	t->nranges--;
	if (!t->by_start)
		return;
	for (p = &t->by_start[bucket(t, n->start)]; *p != n; p = &(*p)->hash_next)
		;
	*p = n->hash_next;
}

static struct fork_range *find_start(const struct fork_tree *t, uintptr_t start)
{
	struct fork_range *n;

	if (!t->by_start)
		return NULL;
	for (n = t->by_start[bucket(t, start)]; n && n->start != start; n = n->hash_next)
		;
	return n;
}

/* ---- Red-black tree of disjoint ranges, ordered by address ---- */

static bool is_red(const struct fork_range *n)
{
	return n && n->red;
}

static void replace_child(struct fork_tree *t, struct fork_range *parent,
			  struct fork_range *old, struct fork_range *new)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
	if (new)
		new->parent = parent;
}

static void rotate_left(struct fork_tree *t, struct fork_range *x)
{
	struct fork_range *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	replace_child(t, x->parent, x, y);
	y->left = x;
	x->parent = y;
}

static void rotate_right(struct fork_tree *t, struct fork_range *x)
{
	struct fork_range *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	replace_child(t, x->parent, x, y);
	y->right = x;
	x->parent = y;
}

static void insert_fixup(struct fork_tree *t, struct fork_range *z)
{
	struct fork_range *p, *g, *uncle;

	while ((p = z->parent) && p->red) {
		g = p->parent;
		if (p == g->left) {
			uncle = g->right;
			if (is_red(uncle)) {
				p->red = uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				rotate_left(t, p);
				p = z;
			}
			rotate_right(t, g);
		} else {
			uncle = g->left;
			if (is_red(uncle)) {
				p->red = uncle->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				rotate_right(t, p);
				p = z;
			}
			rotate_left(t, g);
		}
		p->red = false;
		g->red = true;
		break;
	}
	t->root->red = false;
}

/* Links n between its address-order neighbours prev and next (either may be
 * NULL).  If prev has a right subtree, next is that subtree's leftmost node,
 * so one of the two always has the free slot n belongs in. */
static void insert_between(struct fork_tree *t, struct fork_range *n,
			   struct fork_range *prev, struct fork_range *next)
{
	n->left = n->right = NULL;
	n->red = true;
	n->prev = prev;
	n->next = next;
	if (prev)
		prev->next = n;
	if (next)
		next->prev = n;

	if (prev && !prev->right) {
		prev->right = n;
		n->parent = prev;
	} else if (next) {
		next->left = n;
		n->parent = next;
	} else {
		t->root = n;
		n->parent = NULL;
	}
	insert_fixup(t, n);
	index_add(t, n);
}

/* x (maybe NULL) is one black short; parent is its parent. */
static void erase_fixup(struct fork_tree *t, struct fork_range *x, struct fork_range *parent)
{
	struct fork_range *w;

	while (x != t->root && !is_red(x)) {
		if (x == parent->left) {
			w = parent->right;
			if (w->red) {
				w->red = false;
				parent->red = true;
				rotate_left(t, parent);
				w = parent->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rotate_right(t, w);
				w = parent->right;
			}
			w->red = parent->red;
			parent->red = false;
			w->right->red = false;
			rotate_left(t, parent);
		} else {
			w = parent->left;
			if (w->red) {
				w->red = false;
				parent->red = true;
				rotate_right(t, parent);
				w = parent->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rotate_left(t, w);
				w = parent->left;
			}
			w->red = parent->red;
			parent->red = false;
			w->left->red = false;
			rotate_right(t, parent);
		}
		x = t->root;
	}
	if (x)
		x->red = false;
}

static void erase(struct fork_tree *t, struct fork_range *z)
{
	struct fork_range *x, *parent, *y;
	bool black_removed = !z->red;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		parent = z->parent;
		replace_child(t, parent, z, x);
	} else {
		/* Two children: the successor (leftmost on the right) takes z's place. */
		y = z->next;
		black_removed = !y->red;
		x = y->right;
		if (y->parent == z) {
			parent = y;
		} else {
			parent = y->parent;
			replace_child(t, parent, y, x);
			y->right = z->right;
			y->right->parent = y;
		}
		replace_child(t, z->parent, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	if (black_removed)
		erase_fixup(t, x, parent);

	if (z->prev)
		z->prev->next = z->next;
	if (z->next)
		z->next->prev = z->prev;
	index_del(t, z);
}

/* The first range ending after addr (the one holding it, or the next one),
 * and in *before the last range ending at or before addr. */
static struct fork_range *first_ending_after(const struct fork_tree *t, uintptr_t addr,
					     struct fork_range **before)
{
	struct fork_range *n = t->root, *found = NULL;

	*before = NULL;
	while (n) {
		if (n->end > addr) {
			found = n;
			n = n->left;
		} else {
			*before = n;
			n = n->right;
		}
	}
	return found;
}

/* ---- Spare nodes ---- */

/* A few nodes survive merges for the next split: no malloc on hot paths. */
#define SPARE_MAX 8

static bool reserve(struct fork_tree *t, unsigned int need)
{
	while (t->nspare < need) {
		struct fork_range *n = malloc(sizeof(*n));

		if (!n)
			return false;
		n->next = t->spare;
		t->spare = n;
		t->nspare++;
	}
	return true;
}

static struct fork_range *take(struct fork_tree *t)
{
	struct fork_range *n = t->spare;

	t->spare = n->next;
	t->nspare--;
	return n;
}

static void give(struct fork_tree *t, struct fork_range *n)
{
	if (t->nspare >= SPARE_MAX) {
		free(n);
		return;
	}
	n->next = t->spare;
	t->spare = n;
	t->nspare++;
}

/* ---- Reference counting over a range ---- */

/* Splits n at addr (inside it); the new right half follows n. */
static void split(struct fork_tree *t, struct fork_range *n, uintptr_t addr)
{
	struct fork_range *right = take(t);

	right->start = addr;
	right->end = n->end;
	right->refs = n->refs;
	n->end = addr;
	insert_between(t, right, n, n->next);
}

/* Keeps ranges maximal: n absorbs its successor if they touch and agree. */
static void merge_next(struct fork_tree *t, struct fork_range *n)
{
	struct fork_range *m = n->next;

	if (!m || m->start != n->end || m->refs != n->refs)
		return;
	n->end = m->end;
	erase(t, m);
	give(t, m);
}

/* How many nodes an update of [start, end) will create: splits at either
 * end, plus one per untracked gap when adding. */
static unsigned int nodes_needed(const struct fork_range *n, uintptr_t start,
				 uintptr_t end, int delta)
{
	unsigned int need = 0;
	uintptr_t pos = start;

	if (n && n->start < start)
		need++;
	for (; n && n->start < end; n = n->next) {
		if (delta > 0 && n->start > pos)
			need++;
		if (n->end > end)
			need++;
		pos = n->end;
	}
	if (delta > 0 && pos < end)
		need++;
	return need;
}

/* Walks the runs of pages whose count crosses 0 <-> 1: the untracked gaps
 * when adding, the ranges at 1 when dropping.  Maximal merging makes each
 * of them a run on its own. */
struct run_walk {
	const struct fork_range *n;
	uintptr_t pos, end;
	int delta;
};

static bool next_run(struct run_walk *w, uintptr_t *start, uintptr_t *end)
{
	const struct fork_range *n;

	if (w->delta > 0) {
		while (w->pos < w->end) {
			uintptr_t gap = w->pos;

			n = w->n;
			if (n && n->start < w->end) {
				w->pos = n->end;
				w->n = n->next;
				if (n->start <= gap)
					continue;
				*end = n->start;
			} else {
				w->pos = *end = w->end;
			}
			*start = gap;
			return true;
		}
		return false;
	}
	while ((n = w->n) && n->start < w->end) {
		w->n = n->next;
		if (n->refs != 1)
			continue;
		*start = n->start > w->pos ? n->start : w->pos;
		*end = n->end < w->end ? n->end : w->end;
		return true;
	}
	return false;
}

/* madvise()s every run, or on failure none: the runs already done and the
 * failed one, which the kernel may have applied in part, are put back. */
static int advise_runs(struct fork_tree *t, const struct fork_range *first,
		       uintptr_t start, uintptr_t end, int delta)
{
	const struct run_walk from = { first, start, end, delta };
	struct run_walk w = from;
	int advice = delta > 0 ? MADV_DONTFORK : MADV_DOFORK;
	int undo = delta > 0 ? MADV_DOFORK : MADV_DONTFORK;
	unsigned long done = 0;
	uintptr_t rs, re;
	int err;

	while (next_run(&w, &rs, &re)) {
		if (t->advise((void *)rs, re - rs, advice) == 0) {
			done++;
			continue;
		}
		err = errno;
		w = from;
		for (unsigned long i = 0; i <= done && next_run(&w, &rs, &re); i++)
			t->advise((void *)rs, re - rs, undo);
		return err;
	}
	return 0;
}

static void add_ref(struct fork_tree *t, struct fork_range *n, struct fork_range *prev,
		    uintptr_t start, uintptr_t end)
{
	struct fork_range *first = NULL, *cur;
	uintptr_t pos = start;

	if (n && n->start < start) {
		split(t, n, start);
		prev = n;
		n = n->next;
	}
	while (pos < end) {
		if (!n || n->start > pos) {
			cur = take(t);
			cur->start = pos;
			cur->end = n && n->start < end ? n->start : end;
			cur->refs = 1;
			insert_between(t, cur, prev, n);
		} else {
			cur = n;
			if (cur->end > end)
				split(t, cur, end);
			cur->refs++;
			n = cur->next;
		}
		if (!first)
			first = cur;
		pos = cur->end;
		prev = cur;
	}
	/* Only the two edges can have become mergeable; the end first, as the
	 * start's merge may free `first`, which can also be the last range. */
	merge_next(t, prev);
	if (first->prev)
		merge_next(t, first->prev);
}

static void drop_ref(struct fork_tree *t, struct fork_range *n, uintptr_t start, uintptr_t end)
{
	struct fork_range *before, *next;

	if (!n || n->start >= end)
		return;
	if (n->start < start) {
		split(t, n, start);
		n = n->next;
	}
	before = n->prev;
	for (; n && n->start < end; n = next) {
		if (n->end > end)
			split(t, n, end);
		next = n->next;
		if (--n->refs == 0) {
			erase(t, n);
			give(t, n);
		}
	}
	if (n && n->prev)
		merge_next(t, n->prev);
	if (before)
		merge_next(t, before);
}

int fork_tree_update(struct fork_tree *t, uintptr_t start, uintptr_t end, int delta)
{
	struct fork_range *before, *first;
	int err;

	if (start >= end)
		return 0;
	/* Taking or dropping one more reference on a known range, as when
	 * one buffer backs several MRs: no call, no tree walk. */
	first = find_start(t, start);
	if (first && first->end == end && (delta > 0 || first->refs > 1)) {
		first->refs += delta;
		merge_next(t, first);
		if (first->prev)
			merge_next(t, first->prev);
		return 0;
	}
	if (first)
		before = first->prev;
	else
		first = first_ending_after(t, start, &before);
	if (!reserve(t, nodes_needed(first, start, end, delta))) {
		while (t->nspare > SPARE_MAX)
			free(take(t));
		return ENOMEM;
	}
	err = advise_runs(t, first, start, end, delta);
	if (err)
		return err;
	if (delta > 0)
		add_ref(t, first, before, start, end);
	else
		drop_ref(t, first, start, end);
	return 0;
}

void fork_tree_clear(struct fork_tree *t)
{
	struct fork_range *n = t->root, *next;

	while (n && n->left)
		n = n->left;
	for (; n; n = next) {
		next = n->next;
		free(n);
	}
	for (n = t->spare; n; n = next) {
		next = n->next;
		free(n);
	}
	free(t->by_start);
	t->root = t->spare = NULL;
	t->by_start = NULL;
	t->nspare = t->by_start_bits = 0;
	t->nranges = 0;
}
