/* SPDX-License-Identifier: MIT */
/*
 * model/dtree.c - NCCL's double binary tree over the nodes, hop by hop: what
 * the busiest NIC of each network hop moves while the first chunk crosses it.
 *
 * NCCL builds the tree part of Tree and NVLSTree across nodes with
 * ncclGetDtree (src/graph/trees.cc; kb NA-ALGO-TREE): tree 0 is a binary
 * tree whose root, node 0, has one child, and tree 1 is tree 0 shifted by one
 * node (odd node counts) or mirrored (even ones), each carrying half the
 * buffer up and down. When the whole buffer is one loop of chunks (one chunk
 * per channel and head), each hop of the tree waits for the one before it:
 * the hops take turns, and a hop lasts as long as its busiest NIC needs for
 * what it sends or receives in that hop, not the whole operation's 2S. The
 * hops are numbered as a chunk reaches them: going up, a node sends once
 * everything below it has come in (a leaf at once); going down, a node
 * sends once its own parent's copy has come in, the root once its children
 * have (the flow engine's stages, sim/engine_flow.c phase_stages()). From two
 * loops on the chunks follow one another a hop apart (NCCL's NVLSTree kernel
 * runs every stage as a warp group looping over the chunks, src/device/
 * all_reduce.h), so while the first chunk is in hop h its NICs also carry the
 * second in hop h - 1, the third in hop h - 2, as far as there are loops.
 */
#include "model_int.h"

/* The largest tree this walks; beyond it the hops are priced at the whole
 * operation's rate (ft__model_dtree_fill_load() gives 0). */
#define DTREE_MAX_NODES 4096u

/*
 * Node @r's parent in NCCL's binary tree over @n nodes (ncclGetBtree): node 0
 * is the root and has one child, the largest power of two below @n; node r
 * with lowest set bit b hangs below (r ^ b) | 2b, or r ^ b when that is past
 * the end. -1 for the root; @second says whether r is its parent's second
 * child (r above it), as NCCL's parentChildType.
 */
static int
btree_parent(uint32_t n, uint32_t r, bool *second)
{
	uint32_t bit, up;

	*second = false;
	if (r == 0)
		return -1;
	for (bit = 1; bit < n && !(bit & r); bit <<= 1)
		;
	up = (r ^ bit) | (bit << 1);
	if (up >= n)
		up = r ^ bit;
	*second = r > up;
	return (int)up;
}

int
ft__dtree_parent(uint32_t n, uint32_t t, uint32_t r, bool *second)
{
	int up;

	if (t == 0)
		return btree_parent(n, r, second);
	if (n % 2) {
		up = btree_parent(n, (r + n - 1) % n, second);
		return up < 0 ? -1 : (int)(((uint32_t)up + 1) % n);
	}
	up = btree_parent(n, n - 1 - r, second);
	return up < 0 ? -1 : (int)(n - 1 - (uint32_t)up);
}

/* Hops of tree @t: @up[k], the up hop of node k's edge to its parent (its subtree's
 * height less one); @down[k], the down hop of the same edge. Returns the hops the tree
 * takes. */
static uint32_t
tree_hops(uint32_t n, uint32_t t, int *parent, uint32_t *up, uint32_t *down)
{
	uint32_t k, top = 0, hops;
	bool changed = true;

	for (k = 0; k < n; k++) {
		bool second;

		parent[k] = ft__dtree_parent(n, t, k, &second);
		up[k] = 0;
	}
	/* a node's height: one more than its highest child's (at most n passes) */
	while (changed) {
		changed = false;
		for (k = 0; k < n; k++)
			if (parent[k] >= 0 && up[parent[k]] < up[k] + 1) {
				up[parent[k]] = up[k] + 1;
				changed = true;
			}
	}
	for (k = 0; k < n; k++)
		if (parent[k] >= 0)
			top = FT_MAX(top, up[k] + 1);
	/* down: the root's children at hop top, then one more per level */
	for (k = 0; k < n; k++) {
		uint32_t d = 0;
		int p = parent[k];

		if (p < 0)
			continue;
		while (parent[p] >= 0) {
			d++;
			p = parent[p];
		}
		down[k] = top + d;
	}
	hops = top;
	for (k = 0; k < n; k++)
		if (parent[k] >= 0)
			hops = FT_MAX(hops, down[k] + 1);
	return hops;
}

/*
 * The pipeline's fill over @nnodes nodes in @loops loops, in S (the buffer): for each hop
 * the busiest NIC's bytes, sent or received, in that hop and the @loops - 1 before it
 * (the chunks behind the first), summed over the hops. One loop: the hops one after
 * another, each with its own bytes, in *@load; 0 past DTREE_MAX_NODES. Returns 0, or
 * FT_ENOMEM with *@load 0: a fill the walk could not price is the caller's error, never
 * a time without it.
 */
int
ft__model_dtree_fill_load(uint32_t nnodes, uint64_t loops, double *load)
{
	uint32_t n = nnodes, t, k, h, m, nhops = 0, hops[2];
	int *parent = NULL, rc = FT_ENOMEM;
	uint32_t *up = NULL, *down = NULL;
	double *sent = NULL, *got = NULL;

	*load = 0;
	if (n < 2 || n > DTREE_MAX_NODES || loops == 0)
		return 0;
	parent = ft_calloc(2 * (size_t)n, sizeof(*parent));
	up = ft_calloc(2 * (size_t)n, sizeof(*up));
	down = ft_calloc(2 * (size_t)n, sizeof(*down));
	if (!parent || !up || !down)
		goto out;
	for (t = 0; t < 2; t++) {
		hops[t] = tree_hops(n, t, parent + t * n, up + t * n, down + t * n);
		nhops = FT_MAX(nhops, hops[t]);
	}
	/* sent[h n + k], got[h n + k]: what node k sends and receives in hop h, in S */
	sent = ft_calloc((size_t)nhops * n, sizeof(*sent));
	got = ft_calloc((size_t)nhops * n, sizeof(*got));
	if (!sent || !got)
		goto out;
	/* each hop: every edge of both trees at that hop moves S / 2 one way */
	for (t = 0; t < 2; t++)
		for (k = 0; k < n; k++) {
			uint32_t p = (uint32_t)parent[t * n + k];

			if (parent[t * n + k] < 0)
				continue;
			sent[(size_t)up[t * n + k] * n + k] += 0.5;
			got[(size_t)up[t * n + k] * n + p] += 0.5;
			sent[(size_t)down[t * n + k] * n + p] += 0.5;
			got[(size_t)down[t * n + k] * n + k] += 0.5;
		}
	/* the first chunk in hop h shares each NIC with the chunks behind it, one hop back per
	 * loop: what the NIC moves in hops h, h - 1, ... h - (loops - 1) */
	for (h = 0; h < nhops; h++) {
		double busiest = 0;

		for (k = 0; k < n; k++) {
			double tx = 0, rx = 0;

			for (m = 0; m <= h && m < loops; m++) {
				tx += sent[(size_t)(h - m) * n + k];
				rx += got[(size_t)(h - m) * n + k];
			}
			busiest = FT_MAX(busiest, FT_MAX(tx, rx));
		}
		*load += busiest;
	}
	rc = 0;
out:
	ft_free(parent);
	ft_free(up);
	ft_free(down);
	ft_free(sent);
	ft_free(got);
	return rc;
}
