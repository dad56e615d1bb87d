/* SPDX-License-Identifier: MIT */
/*
 * parse/nvidia_smi_topo.c - `nvidia-smi topo -m`: the GPU/NIC connection
 * matrix, CPU and NUMA affinity columns and the NIC legend (SMI-LEGEND).
 *
 * Keys: `gpu.count`; per GPU `gpu.cpu_affinity`, `gpu.numa_affinity`;
 * per GPU-NIC pair `gpu.nic_path` (device "GPU0->mlx5_0", str PIX, PXB, PHB,
 * NODE, SYS); per GPU pair `gpu.gpu_path` (device "GPU0->GPU1", str NV12,
 * PIX, ...); per NIC `gpu.nic_name` (device NIC0, str mlx5_0).
 *
 * Pastes that lost a tab run two cells together ("SYSSYS", "NIC7NIC8",
 * "X SYS"); cells are split on the known link names, so such rows still read.
 * A row whose cell count does not match the header is reported skipped.
 */
#include "parse_int.h"

#define MAX_DEV 64

struct topo {
	char name[MAX_DEV][16]; /* column names: GPU0, NIC3 */
	size_t ncol;
	char nic_name[MAX_DEV][48]; /* legend: NIC index -> mlx5_x */
	bool have_legend[MAX_DEV];
};

static const char *const links[] = { "NODE", "SYS", "PHB", "PXB", "PIX", "NV", "X" };

/* Length of the link name at the start of @s, or 0. */
static size_t
link_len(struct ft__span s)
{
	for (size_t i = 0; i < FT_ARRAY_SIZE(links); i++) {
		size_t k = strlen(links[i]);

		if (s.n >= k && memcmp(s.p, links[i], k) == 0) {
			if (k == 2) /* NV# */
				while (k < s.n && ft__is_digit(s.p[k]))
					k++;
			return k;
		}
	}
	return 0;
}

/* Length of a column name (GPU12, NIC3) at the start of @s, or 0. */
static size_t
dev_len(struct ft__span s)
{
	size_t k;

	if (!(ft__starts(s, "GPU") || ft__starts(s, "NIC") || ft__starts(s, "mlx")))
		return 0;
	k = 3;
	if (ft__starts(s, "mlx")) {
		while (k < s.n && s.p[k] != ' ' && s.p[k] != '\t' && !(k > 3 && s.p[k] == 'm'))
			k++;
		return k;
	}
	while (k < s.n && ft__is_digit(s.p[k]))
		k++;
	return k > 3 ? k : 0;
}

static bool
nic_index(const char *name, size_t *idx)
{
	uint64_t u;

	if (strncmp(name, "NIC", 3) != 0 || !ft__u64(ft__span_c(name + 3), &u) || u >= MAX_DEV)
		return false;
	*idx = (size_t)u;
	return true;
}

static const char *
display(const struct topo *t, const char *col)
{
	size_t i;

	if (nic_index(col, &i) && t->have_legend[i])
		return t->nic_name[i];
	return col;
}

struct row {
	uint32_t line;
	char name[16];
	char cell[MAX_DEV][8];
	size_t ncell;
	char cpu[48];
	char numa[16];
};

/*
 * "0-47,96-143": ranges and single CPUs, each range rising. A row cut in
 * the middle of its affinity ("112-127,240-25") fails, as does "N/A".
 */
static bool
is_cpu_list(const char *s)
{
	unsigned long lo, hi;
	char *end;

	do {
		if (!isdigit((unsigned char)*s))
			return false;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return false;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || (*end && *end != ','))
			return false;
		s = end + (*end == ',');
	} while (*end);
	return true;
}

static void
emit_row(struct ft__pctx *c, const struct topo *t, const struct row *r)
{
	char dev[48];
	struct ft__span numa = ft__span_c(r->numa);
	uint64_t u;

	if (strncmp(r->name, "GPU", 3) != 0)
		return;
	for (size_t j = 0; j < r->ncell && j < t->ncol; j++) {
		bool to_gpu = strncmp(t->name[j], "GPU", 3) == 0;

		if (strcmp(r->cell[j], "X") == 0)
			continue;
		snprintf(dev, sizeof(dev), "%s->%s", r->name, display(t, t->name[j]));
		ft_strlcpy(c->device, dev, sizeof(c->device));
		ft__emit_cstr(c, r->line, to_gpu ? "gpu.gpu_path" : "gpu.nic_path", r->cell[j]);
	}
	ft_strlcpy(c->device, r->name, sizeof(c->device));
	if (r->cpu[0] && is_cpu_list(r->cpu))
		ft__emit_cstr(c, r->line, "gpu.cpu_affinity", r->cpu);
	else if (r->cpu[0] && strcmp(r->cpu, "N/A") != 0)
		ft__skipped(c, r->line, "CPU affinity is not a CPU list", ft__span_c(r->cpu));
	if (ft__u64(numa, &u))
		ft__emit_num(c, r->line, "gpu.numa_affinity", (double)u, NULL);
	else if (r->numa[0])
		ft__emit_cstr(c, r->line, "gpu.numa_affinity", r->numa);
}

/* Split a matrix row into cells; false when it does not fit the header. */
static bool
read_row(struct ft__span s, const struct topo *t, struct row *r)
{
	struct ft__span tok;
	size_t k;

	k = dev_len(s);
	if (!k)
		return false;
	ft__copy(r->name, sizeof(r->name), (struct ft__span){ s.p, k });
	s = ft__skip(s, k);
	r->ncell = 0;
	r->cpu[0] = r->numa[0] = '\0';
	while (r->ncell < t->ncol) {
		s = ft__trim(s);
		if (!s.n)
			break;
		k = link_len(s);
		if (!k)
			return false;
		ft__copy(r->cell[r->ncell++], sizeof(r->cell[0]), (struct ft__span){ s.p, k });
		s = ft__skip(s, k);
	}
	if (r->ncell != t->ncol)
		return false;
	if (ft__token(&s, &tok))
		ft__copy(r->cpu, sizeof(r->cpu), tok);
	if (ft__token(&s, &tok))
		ft__copy(r->numa, sizeof(r->numa), tok);
	return true;
}

int
ft__nvidia_smi_topo_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;
	struct topo *t = ft_calloc(1, sizeof(*t));
	struct row *rows = NULL;
	size_t nrows = 0, caprows = 0, ngpu = 0;
	uint32_t hdr_line = 0;
	bool legend = false;

	if (!t)
		return ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	while (ft__next_line(c, &it, &s)) {
		struct ft__span k, v;

		if (!t->ncol && (ft__starts(s, "GPU0") || ft__starts(s, "GPU ")) &&
		    ft__find(s, "Affinity")) {
			/* header: GPU0 GPU1 ... NIC0 ... CPU Affinity ... */
			struct ft__span h = s;

			hdr_line = it.lineno;
			while (h.n && t->ncol < MAX_DEV) {
				size_t n;

				h = ft__trim(h);
				n = dev_len(h);
				if (!n)
					break;
				ft__copy(t->name[t->ncol++], sizeof(t->name[0]),
				         (struct ft__span){ h.p, n });
				h = ft__skip(h, n);
			}
			continue;
		}
		if (ft__eq(s, "Legend:"))
			continue;
		if (ft__eq(s, "NIC Legend:")) {
			legend = true;
			continue;
		}
		if (legend && ft__split(s, ':', &k, &v)) {
			size_t i;
			char name[16];

			ft__copy(name, sizeof(name), k);
			if (nic_index(name, &i)) {
				ft__copy(t->nic_name[i], sizeof(t->nic_name[0]), v);
				t->have_legend[i] = true;
				ft__pctx_entity(c, name, -1);
				ft__emit_str(c, it.lineno, "gpu.nic_name", v);
				continue;
			}
		}
		if (ft__split(s, '=', &k, &v) && k.n <= 4)
			continue; /* legend text: "SYS  = Connection traversing ..." */
		if (t->ncol && dev_len(s)) {
			struct row r;

			if (read_row(s, t, &r)) {
				if (nrows == caprows) {
					size_t ncap = caprows ? caprows * 2 : 16;
					struct row *nr = ft_reallocarray(rows, ncap, sizeof(*rows));

					if (!nr) {
						c->rc = ft_error_set(c->err, FT_ENOMEM,
						                     "%s: out of memory", c->file);
						break;
					}
					rows = nr;
					caprows = ncap;
				}
				r.line = it.lineno;
				rows[nrows++] = r;
				if (strncmp(r.name, "GPU", 3) == 0)
					ngpu++;
			} else {
				ft__skipped(c, it.lineno, "matrix row does not match the header",
				            s);
			}
			continue;
		}
		ft__unread(c, it.lineno, "not nvidia-smi topo -m output", s);
	}
	if (!c->rc && t->ncol) {
		ft__pctx_entity(c, "", -1);
		ft__emit_num(c, hdr_line, "gpu.count", (double)ngpu, "count");
		for (size_t i = 0; i < nrows; i++)
			emit_row(c, t, &rows[i]);
	}
	ft_free(rows);
	ft_free(t);
	return c->rc;
}

FT__PARSER(nvidia_smi_topo, "nvidia-smi-topo",
           "nvidia-smi topo -m: GPU-NIC paths (PIX/PXB/PHB/NODE/SYS), NUMA affinity",
           { 95, { "GPU0", "CPU Affinity" } }, { 80, { "Connection traversing" } });
