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
 * Fields are "Name : value" with the colon in a fixed column; sections are
 * indented. Only the top-level fields and each GPU's "Product Name" are
 * read: a grep'd or cut capture ("[...]") keeps what it holds.
 */
#include "parse_int.h"

static const struct ft__field top_fields[] = {
	{ "Driver Version", "gpu.driver_version", FT__F_STR, NULL },
	{ "CUDA Version", "gpu.cuda_version", FT__F_STR, NULL },
	{ "Attached GPUs", "gpu.count", FT__F_NUM, "count" },
};

int
ft__nvidia_smi_q_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, key, val;

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
			continue;
		}
		if (!ft__split(s, ':', &key, &val))
			continue;
		if (indented && ft__eq(key, "Product Name") && c->device[0])
			ft__emit_str(c, it.lineno, "gpu.model", val);
		else if (!indented)
			(void)ft__field_emit(c, it.lineno, top_fields, FT_ARRAY_SIZE(top_fields), key,
					     val);
	}
	return c->rc;
}

FT__PARSER(nvidia_smi_q, "nvidia-smi-q",
           "nvidia-smi -q: driver and CUDA versions, attached GPUs, each GPU's product name",
           { 95, { "NVSMI LOG" } },
           { 90, { "Attached GPUs", "Product Name" } });
