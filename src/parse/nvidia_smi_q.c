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
 *   ECC Errors / Volatile (since the driver loaded) or Aggregate (lifetime)
 *       DRAM Uncorrectable  : 2            -> gpu.ecc.volatile.dram_uncorrectable
 *       SRAM Correctable    : 0               (count; every field of the
 *                                             section, its name in lower case
 *                                             with '_' for blanks and '-')
 *       Double Bit / Total  : 1            -> gpu.ecc.volatile.dbe (before A100:
 *       Single Bit / Total  : 0            -> gpu.ecc.volatile.sbe  a sub-section
 *                                             per kind; only its Total is read)
 *   PCI / GPU Link Info
 *       PCIe Generation / Max, Current     -> pcie.link.speed_max, speed_cur
 *                                             (GT/s of that generation, HOST-PCIE)
 *       Link Width / Max, Current : 16x    -> pcie.link.width_max, width_cur (lanes)
 *   PCI / Bus Id        : 00000000:01:00.0 -> gpu.bus_id (str; the GPU's name when
 *                                             its GPU line was cut away)
 *   Performance State   : P8               -> gpu.pstate (str; P0 is full speed)
 *   Utilization / Gpu   : 0 %              -> gpu.util (%)
 *
 * Fields are "Name : value" with the colon in a fixed column; sections are
 * indented, a heading being a line without a colon, and a field belongs to the
 * headings above it that are less indented (the remapping fields are read
 * only under theirs: "Pending" also names a pending ECC or driver mode).
 * Only these fields are read: a grep'd or cut capture ("[...]", or the
 * Remapped Rows section alone, without its GPU line) keeps what it holds.
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

/* The headings a line sits under: each with its indent, outermost first. */
struct heads {
	size_t n;
	size_t indent[6];
	struct ft__span name[6];
};

/* Drop the headings that a line at @indent is not under. */
static void
heads_close(struct heads *h, size_t indent)
{
	while (h->n && h->indent[h->n - 1] >= indent)
		h->n--;
}

/* The heading @up levels above the line ("" when there is none). */
static struct ft__span
head(const struct heads *h, size_t up)
{
	return up < h->n ? h->name[h->n - 1 - up] : (struct ft__span){ "", 0 };
}

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

/* An ECC error count under "ECC Errors" / "Volatile" or "Aggregate"; false when not one. */
static bool
ecc_field(struct ft__pctx *c, uint32_t line, const struct heads *h, struct ft__span key,
          struct ft__span val)
{
	struct ft__span span = head(h, 0), kind = { "", 0 };
	char name[64], full[96];
	size_t k = 0;
	uint64_t u;

	if (ft__eq(span, "Single Bit") || ft__eq(span, "Double Bit")) {
		kind = span; /* before A100: a sub-section per kind, with its Total */
		span = head(h, 1);
	}
	if (!ft__eq(head(h, kind.n ? 2 : 1), "ECC Errors") ||
	    !(ft__eq(span, "Volatile") || ft__eq(span, "Aggregate")))
		return false;
	if ((kind.n && !ft__eq(key, "Total")) || !ft__u64(val, &u))
		return true; /* a part of the total, or "N/A" */
	if (kind.n)
		key = ft__span_c(kind.p[0] == 'S' ? "sbe" : "dbe");
	for (size_t i = 0; i < key.n && k < sizeof(name) - 1; i++)
		name[k++] = isalnum((unsigned char)key.p[i]) ? (char)tolower((unsigned char)key.p[i])
							     : '_';
	name[k] = '\0';
	snprintf(full, sizeof(full), "gpu.ecc.%s.%s", span.p[0] == 'V' ? "volatile" : "aggregate",
		 name);
	ft__emit_num(c, line, full, (double)u, "count");
	return true;
}

/* GT/s per lane of PCIe generation 1-6 (HOST-PCIE), 0 for any other. */
static double
pcie_gen_rate(double gen)
{
	static const double rate[] = { 2.5, 5, 8, 16, 32, 64 };

	return gen >= 1 && gen <= 6 && gen == (int)gen ? rate[(int)gen - 1] : 0;
}

/*
 * "Max" and "Current" under "PCIe Generation" or "Link Width" (of "GPU Link
 * Info", a heading a cut capture may have lost).
 */
static bool
link_field(struct ft__pctx *c, uint32_t line, const struct heads *h, struct ft__span key,
           struct ft__span val)
{
	struct ft__span sec = head(h, 0);
	bool max = ft__eq(key, "Max"), cur = ft__eq(key, "Current");
	double v;

	if (!(max || cur) || !ft__lead_dbl(val, &v, NULL))
		return false;
	if (ft__eq(sec, "PCIe Generation") && pcie_gen_rate(v) > 0)
		ft__emit(c, line, max ? "pcie.link.speed_max" : "pcie.link.speed_cur", true,
			 pcie_gen_rate(v), "GT/s", val);
	else if (ft__eq(sec, "Link Width"))
		ft__emit(c, line, max ? "pcie.link.width_max" : "pcie.link.width_cur", true, v,
			 "lanes", val);
	else
		return false;
	return true;
}

/* A field of a GPU's section (indented) under the headings @h. */
static void
gpu_field(struct ft__pctx *c, uint32_t line, const struct heads *h, struct ft__span key,
          struct ft__span val)
{
	const struct ft__field *sec;
	size_t nsec;

	if (ft__eq(head(h, 0), "PCI") && ft__eq(key, "Bus Id")) {
		char dev[48];

		ft__copy(dev, sizeof(dev), val); /* the GPU line was cut away: its address */
		if (!c->device[0])
			ft__pctx_entity(c, dev, -1);
		ft__emit_str(c, line, "gpu.bus_id", val);
		return;
	}
	if (!h->n) {
		if (ft__eq(key, "Product Name") && c->device[0])
			ft__emit_str(c, line, "gpu.model", val);
		else if (ft__eq(key, "Performance State"))
			ft__emit_str(c, line, "gpu.pstate", val);
		return;
	}
	sec = section_fields(head(h, 0), &nsec);
	if (sec) {
		(void)ft__field_emit(c, line, sec, nsec, key, val);
		return;
	}
	if (ecc_field(c, line, h, key, val) || link_field(c, line, h, key, val))
		return;
	if (ft__eq(head(h, 0), "Utilization") && ft__eq(key, "Gpu"))
		ft__field_value(c, line, "gpu.util", FT__F_LEAD, "%", val);
}

int
ft__nvidia_smi_q_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, key, val;
	struct heads h = { 0 };

	ft__lines_init(&it, text, len, c->line0);
	ft__pctx_entity(c, "", -1);
	while (ft__lines_next(&it, &raw) && !c->rc) {
		size_t indent = 0;
		struct ft__span s = ft__trim(raw), addr = ft__skip(s, 4);

		while (indent < raw.n && ft__is_space(raw.p[indent]))
			indent++;
		/* "GPU 00000000:10:1C.0" opens a GPU's section */
		if (!indent && ft__starts(s, "GPU ") && addr.n && !memchr(addr.p, ' ', addr.n) &&
		    memchr(addr.p, ':', addr.n)) {
			char dev[48];

			ft__copy(dev, sizeof(dev), addr);
			ft__pctx_entity(c, dev, -1);
			h.n = 0;
			continue;
		}
		if (!s.n)
			continue;
		heads_close(&h, indent);
		if (!ft__split(s, ':', &key, &val)) {
			if (h.n < FT_ARRAY_SIZE(h.name)) {
				h.indent[h.n] = indent;
				h.name[h.n++] = s;
			}
			continue;
		}
		if (indent)
			gpu_field(c, it.lineno, &h, key, val);
		else
			(void)ft__field_emit(c, it.lineno, top_fields, FT_ARRAY_SIZE(top_fields), key,
					     val);
	}
	return c->rc;
}

FT__PARSER(nvidia_smi_q, "nvidia-smi-q",
           "nvidia-smi -q: driver and CUDA versions, GPUs, memory repair, ECC errors, PCIe link",
           { 95, { "NVSMI LOG" } },
           { 90, { "Attached GPUs", "Product Name" } },
           { 80, { "Remapped Rows", "Uncorrectable Error" } },
           { 80, { "Retired Pages", "Pending Page" } },
           { 80, { "GPU Link Info", "PCIe Generation" } },
           { 75, { "Link Width", "Performance State", "Clocks Throttle Reasons|Clocks Event Reasons" } },
           { 75, { "ECC Errors", "Volatile", "Aggregate" } });
