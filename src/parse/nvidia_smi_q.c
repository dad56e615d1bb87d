/* SPDX-License-Identifier: MIT */
/*
 * parse/nvidia_smi_q.c - `nvidia-smi -q` (the "NVSMI LOG"): what names the
 * node's GPUs, so that a spec can be derived from a capture as from the
 * probe (diag/whatif.c reads gpu.model and gpu.count):
 *
 *   Driver Version      : 510.73.08        -> gpu.driver_version (str)
 *   CUDA Version        : 11.6             -> gpu.cuda_version (str)
 *   Attached GPUs       : 8                -> gpu.count (count)
 *   GPU 00000000:10:1C.0                      a GPU's section: device = its address
 *       Product Name    : NVIDIA A100-SXM4-80GB -> gpu.model (str)
 *
 *   Remapped Rows                             memory repair state (A100 and later)
 *       Correctable Error   : 1            -> gpu.remap.correctable (count)
 *       Uncorrectable Error : 0            -> gpu.remap.uncorrectable (count)
 *       Pending             : Yes          -> gpu.remap.pending (str)
 *       Remapping Failure Occurred : No    -> gpu.remap.failure (str)
 *   Retired Pages                             the same before A100
 *       Single Bit ECC      : 0            -> gpu.retired.sbe (count)
 *       Double Bit ECC      : 2            -> gpu.retired.dbe (count)
 *       Pending Page Blacklist : Yes       -> gpu.retired.pending (str; also
 *                                             "Pending Page Retirement")
 *
 * Fields are "Name : value" with the colon in a fixed column; sections are
 * indented, a heading being a line without a colon (the remapping fields are
 * read only under theirs: "Pending" also names a pending ECC or driver
 * mode). Only these fields are read: a grep'd or cut capture ("[...]", or
 * the Remapped Rows section alone, without its GPU line) keeps what it holds.
 */
#include "parse_int.h"

static const struct ft__field top_fields[] = {
	{ "Driver Version", "gpu.driver_version", FT__F_STR, NULL },
	{ "CUDA Version", "gpu.cuda_version", FT__F_STR, NULL },
	{ "Attached GPUs", "gpu.count", FT__F_NUM, "count" },
};

static const struct ft__field remap_fields[] = {
	{ "Correctable Error", "gpu.remap.correctable", FT__F_NUM, "count" },
	{ "Uncorrectable Error", "gpu.remap.uncorrectable", FT__F_NUM, "count" },
	{ "Pending", "gpu.remap.pending", FT__F_STR, NULL },
	{ "Remapping Failure Occurred", "gpu.remap.failure", FT__F_STR, NULL },
};

static const struct ft__field retired_fields[] = {
	{ "Single Bit ECC", "gpu.retired.sbe", FT__F_NUM, "count" },
	{ "Double Bit ECC", "gpu.retired.dbe", FT__F_NUM, "count" },
	{ "Pending Page Blacklist", "gpu.retired.pending", FT__F_STR, NULL },
	{ "Pending Page Retirement", "gpu.retired.pending", FT__F_STR, NULL },
};

/* The fields of the section a heading opens, or NULL (a section not read). */
static const struct ft__field *
section_fields(struct ft__span heading, size_t *n)
{
	if (ft__eq(heading, "Remapped Rows")) {
		*n = FT_ARRAY_SIZE(remap_fields);
		return remap_fields;
	}
	if (ft__eq(heading, "Retired Pages")) {
		*n = FT_ARRAY_SIZE(retired_fields);
		return retired_fields;
	}
	*n = 0;
	return NULL;
}

int
ft__nvidia_smi_q_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, key, val;
	const struct ft__field *sec = NULL;
	size_t nsec = 0;

	ft__lines_init(&it, text, len, c->line0);
	ft__pctx_entity(c, "", -1);
	while (ft__lines_next(&it, &raw) && !c->rc) {
		bool indented = raw.n && ft__is_space(raw.p[0]);
		struct ft__span s = ft__trim(raw), addr = ft__skip(s, 4);

		/* "GPU 00000000:10:1C.0" opens a GPU's section */
		if (!indented && ft__starts(s, "GPU ") && addr.n && !memchr(addr.p, ' ', addr.n) &&
		    memchr(addr.p, ':', addr.n)) {
			char dev[48];

			ft__copy(dev, sizeof(dev), addr);
			ft__pctx_entity(c, dev, -1);
			sec = NULL;
			continue;
		}
		if (!ft__split(s, ':', &key, &val)) {
			if (s.n)
				sec = section_fields(s, &nsec);
			continue;
		}
		if (sec && indented) {
			(void)ft__field_emit(c, it.lineno, sec, nsec, key, val);
			continue;
		}
		if (indented && ft__eq(key, "Product Name") && c->device[0])
			ft__emit_str(c, it.lineno, "gpu.model", val);
		else if (!indented)
			(void)ft__field_emit(c, it.lineno, top_fields, FT_ARRAY_SIZE(top_fields), key,
					     val);
	}
	return c->rc;
}

FT__PARSER(nvidia_smi_q, "nvidia-smi-q",
           "nvidia-smi -q: driver and CUDA versions, GPUs, remapped rows and retired pages",
           { 95, { "NVSMI LOG" } },
           { 90, { "Attached GPUs", "Product Name" } },
           { 80, { "Remapped Rows", "Uncorrectable Error" } },
           { 80, { "Retired Pages", "Pending Page" } });
