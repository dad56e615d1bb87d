/* SPDX-License-Identifier: MIT */
/*
 * model/tuner_ofi.c - the choice AWS's NCCL tuner plugin makes on p5 and p5e
 * instances (NCCL_TUNER_PLUGIN set to aws-ofi-nccl's tuner), where NCCL's own
 * tuner would make another.
 *
 * aws-ofi-nccl's region tuner (github.com/aws/aws-ofi-nccl, v1.16.3,
 * src/tuner/nccl_ofi_regions.cpp, "P5 and P5e platform specific Regions";
 * docs/presets.md PS-EFA-TUNER) holds, per collective and rank layout, a list
 * of polygons in the plane (message bytes, ranks), each naming an algorithm
 * and a protocol, measured by AWS on those instances. For a call it takes the
 * first polygon, in list order, that holds the point (its edges included) and
 * whose pair NCCL has not ruled out, and gives that pair a cost of zero, so
 * NCCL runs it; outside every polygon, on one or two nodes, and for the
 * collectives and layouts it has no regions for, NCCL's own tuner decides.
 * On p5/p5e the plugin has all-reduce regions for 8, 2 and 1 ranks per node;
 * this file carries those of 8 ranks per node (every GPU), the layout of
 * nccl-tests runs on these instances. Other layouts are left to NCCL's tuner
 * here (docs/internals/model.md says so).
 */
#include "model_int.h"

#include <math.h>
#include <string.h>

/* The plugin's far corner: regions reaching "beyond" end there (100 GiB, 2^20 ranks). */
#define OFI_MAX_BYTES (100.0 * 1024 * 1024 * 1024)
#define OFI_MAX_RANKS (1024.0 * 1024)
#define OFI_MAX_VERTICES 17
#define OFI_MAX_REGIONS 5

struct ofi_point {
	double bytes, ranks;
};

struct ofi_region {
	enum ft_algo algo;
	enum ft_proto proto;
	unsigned nvert;
	struct ofi_point v[OFI_MAX_VERTICES];
};

/*
 * The point where the line through @a and @b leaves the box up to the far
 * corner: on its right side (bytes = OFI_MAX_BYTES) when it gets there below
 * the top, else on the top (ranks = OFI_MAX_RANKS). A vertical line goes to
 * the top, a horizontal one to the right side. The plugin ends its open
 * regions on these points.
 */
static struct ofi_point
beyond(struct ofi_point a, struct ofi_point b)
{
	double slope, at_right;

	if (a.bytes == b.bytes)
		return (struct ofi_point){ a.bytes, OFI_MAX_RANKS };
	if (a.ranks == b.ranks)
		return (struct ofi_point){ OFI_MAX_BYTES, a.ranks };
	slope = (a.ranks - b.ranks) / (a.bytes - b.bytes);
	at_right = b.ranks + slope * (OFI_MAX_BYTES - b.bytes);
	if (at_right < OFI_MAX_RANKS)
		return (struct ofi_point){ OFI_MAX_BYTES, at_right };
	return (struct ofi_point){ b.bytes + (OFI_MAX_RANKS - b.ranks) / slope, OFI_MAX_RANKS };
}

#define P(x, y) ((struct ofi_point){ (double)(x), (double)(y) })

/* The all-reduce regions of p5/p5e with 8 ranks per node, in the plugin's order, into
 * @r (OFI_MAX_REGIONS long); their count. */
static unsigned
p5_allreduce_8ppn(struct ofi_region *r)
{
	const struct ofi_point tl = beyond(P(402653184, 2048), P(402653184, 4096));
	const struct ofi_point nt = beyond(P(8053063680, 160), P(9663676416, 192));
	const struct ofi_region list[] = {
		{ FT_ALGO_TREE, FT_PROTO_LL128, 12,
		  { P(0, 16), P(31457280, 16), P(37748736, 32), P(117440512, 64),
		    P(301989888, 128), P(301989888, 256), P(335544320, 512), P(536870912, 1024),
		    P(402653184, 2048), P(402653184, 4096), tl, P(0, tl.ranks) } },
		{ FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE, 3,
		  { P(31457281, 16), P(OFI_MAX_BYTES, 16), P(31457281, 16) } },
		{ FT_ALGO_RING, FT_PROTO_LL128, 11,
		  { P(31457280, 17), P(1073741824, 17), P(2147483648, 64), P(2147483648, 128),
		    P(1342177280, 160), P(2147483648, 256), P(1074790400, 256), P(444596224, 160),
		    P(301989888, 128), P(117440512, 64), P(37748736, 32) } },
		{ FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE, 17,
		  { P(2147483648, 128), P(6442450944, 128), P(8053063680, 160),
		    P(9663676416, 192), nt, tl, P(402653184, 4096), P(402653184, 2048),
		    P(536870912, 1024), P(335544320, 512), P(301989888, 256), P(310378496, 160),
		    P(444596224, 160), P(1074790400, 256), P(2684354560, 256), P(2147483648, 224),
		    P(1342177280, 160) } },
		{ FT_ALGO_RING, FT_PROTO_SIMPLE, 7,
		  { P(1073741824, 17), P(nt.bytes, 17), nt, P(9663676416, 192),
		    P(8053063680, 160), P(2684354560, 64), P(1610612736, 32) } },
	};

	_Static_assert(FT_ARRAY_SIZE(list) <= OFI_MAX_REGIONS, "OFI_MAX_REGIONS too small");
	memcpy(r, list, sizeof(list));
	return FT_ARRAY_SIZE(list);
}

#undef P

/* Whether @p lies on the segment @a-@b (collinear within rounding, inside its box). */
static bool
on_edge(struct ofi_point p, struct ofi_point a, struct ofi_point b)
{
	double cross = (b.bytes - a.bytes) * (p.ranks - a.ranks) -
	               (b.ranks - a.ranks) * (p.bytes - a.bytes);
	double scale = (fabs(b.bytes - a.bytes) + 1) * (fabs(b.ranks - a.ranks) + 1);

	if (fabs(cross) > 1e-12 * scale)
		return false;
	return p.bytes >= fmin(a.bytes, b.bytes) && p.bytes <= fmax(a.bytes, b.bytes) &&
	       p.ranks >= fmin(a.ranks, b.ranks) && p.ranks <= fmax(a.ranks, b.ranks);
}

/* Whether @r holds @p: on an edge, or inside by the even-odd rule along the bytes axis. */
static bool
holds(const struct ofi_region *r, struct ofi_point p)
{
	bool in = false;
	unsigned i;

	for (i = 0; i < r->nvert; i++) {
		struct ofi_point a = r->v[i], b = r->v[(i + 1) % r->nvert];

		if (on_edge(p, a, b))
			return true;
		if ((a.ranks > p.ranks) != (b.ranks > p.ranks) &&
		    p.bytes < a.bytes + (p.ranks - a.ranks) * (b.bytes - a.bytes) /
		                                (b.ranks - a.ranks))
			in = !in;
	}
	return in;
}

bool
ft__model_ofi_region(const struct ft_model_links *l, const struct ft_model_query *q,
                     enum ft_algo *algo, enum ft_proto *proto)
{
	struct ofi_region r[OFI_MAX_REGIONS];
	struct ofi_point at = { (double)q->bytes, (double)l->nranks };
	unsigned i, n;

	/* No regions: another instance, another collective or layout, two nodes or fewer. */
	if (!q->ofi_tuner || !l->aws_p5 || q->op != FT_OP_ALL_REDUCE || l->nnodes <= 2 ||
	    l->domain_nodes || l->nranks != 8 * l->nnodes)
		return false;
	n = p5_allreduce_8ppn(r);
	for (i = 0; i < n; i++) {
		/* NCCL leaves out what is forced away or unavailable: the next region is tried. */
		if ((q->force_algo && r[i].algo != q->algo) ||
		    (q->force_proto && r[i].proto != q->proto))
			continue;
		if (ft__model_unavailable(l, q->op, r[i].algo, r[i].proto, q->force_algo,
		                          q->force_proto) ||
		    (q->nvls_off && r[i].algo == FT_ALGO_NVLS_TREE))
			continue;
		if (holds(&r[i], at)) {
			*algo = r[i].algo;
			*proto = r[i].proto;
			return true;
		}
	}
	return false;
}
