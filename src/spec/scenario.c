/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario.c - the scenario loader: YAML or JSON into a validated struct
 * ft_scenario by the one document reader (spec/doc.h), one table of keys
 * per section, every error naming file:line:col and the field, like the
 * spec loader.
 *
 * A scenario names its cluster (a preset shorthand such as "dgx-h100:64", a
 * spec file relative to the scenario, or an inline spec mapping), optional
 * fabric overrides, routing, jobs, background traffic, faults and the
 * packet engine's knobs. The format is documented in docs/cmd/sim.md. This
 * file reads the top level and the cluster and holds the entry points; the
 * jobs, background traffic and faults are read by spec/scenario_jobs.c, the
 * packet: block by spec/scenario_pkt.c.
 */
#include "spec/scenario_load.h"

#include "internal.h"

#include <fabtune/model.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

#include "coll/names.h"
#include "spec/doc.h"

const char *
ft__scenario_text_of(struct ft__doc *d, yaml_node_t *v, const char *path, const char *what)
{
	const char *s = ft__doc_scalar(v);

	if (!s || ft__doc_is_null(v))
		ft__doc_expected(d, v, path, what);
	return s && !ft__doc_is_null(v) ? s : NULL;
}

int
ft__scenario_load_list(struct ld *l, yaml_node_t *seq, const char *name,
                       const struct ft__doc_field *fields, size_t nfields, size_t elem,
                       struct ft_vec *out, ft__scenario_elem_init_fn *init,
                       ft__scenario_elem_check_fn *check)
{
	char path[FT__DOC_PATH_MAX];
	unsigned char obj[512];
	yaml_node_item_t *it;
	size_t i = 0;

	if (!FT_ALWAYS(elem <= sizeof(obj)))
		return FT_EINVAL;
	if (seq->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(&l->d, seq, name, "a list");
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = ft__doc_node(&l->d, *it);
		uint64_t seen = 0;
		int rc;

		snprintf(path, sizeof(path), "%s[%zu]", name, i);
		memset(obj, 0, elem);
		init(obj, n, i);
		rc = ft__doc_walk(&l->d, n, path, fields, nfields, obj, &seen);
		if (rc == 0)
			rc = check(l, path, n, obj, seen);
		if (rc == 0 && ft_vec_push(out, obj) < 0)
			rc = ft_error_set(l->d.err, FT_ENOMEM, "out of memory");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- cluster ----------------------------------------------------------------- */

/*
 * "preset:N" whose default fabric can't hold N nodes, with a `fabric:` block
 * that will resize it: take the preset's fabric defaults from a 2-node
 * cluster, set N nodes on a 3-tier tree; the block and validation follow.
 */
static int
resolve_for_override(const char *s, struct ft_cluster_spec *spec)
{
	struct ft_error e = { 0 };
	const char *colon = strrchr(s, ':');
	char two[80];
	uint64_t n;

	if (!colon || ft_parse_u64(colon + 1, &n) < 0 || n < 2 || n > UINT32_MAX ||
	    (size_t)snprintf(two, sizeof(two), "%.*s:2", (int)(colon - s), s) >= sizeof(two))
		return FT_EINVAL;
	if (ft_spec_resolve(two, spec, &e) < 0)
		return FT_EINVAL;
	spec->nnodes = (uint32_t)n;
	spec->fabric.tiers = 3;
	ft_strlcpy(spec->name, s, sizeof(spec->name));
	ft_strlcpy(spec->source, s, sizeof(spec->source));
	return 0;
}

static int
load_cluster(struct ld *l, yaml_node_t *v, bool has_fabric)
{
	struct ft_error e = { 0 };
	const char *file = l->d.file;
	int rc;

	if (v->type == YAML_MAPPING_NODE) {
		/* An inline spec: hand its text to the spec loader, same file and lines. */
		size_t a = v->start_mark.index, b = v->end_mark.index;
		char *buf;

		if (b > l->len || a > b)
			return ft__doc_fail(&l->d, v, FT_EPARSE, "cluster", "inline spec out of range");
		/* Pad with newlines and spaces so the spec loader's lines match the file's. */
		buf = ft_calloc(b + 1, 1);
		if (!buf)
			return ft_error_set(l->d.err, FT_ENOMEM, "out of memory");
		memset(buf, ' ', a);
		{
			size_t i;

			for (i = 0; i < a; i++)
				if (l->text[i] == '\n')
					buf[i] = '\n';
		}
		memcpy(buf + a, l->text + a, b - a);
		rc = ft_spec_load_buffer(buf, b, file, &l->sc->spec, l->d.err);
		ft_free(buf);
		return rc;
	}
	{
		char path[512];
		const char *s = ft__scenario_text_of(&l->d, v, "cluster", "a preset like dgx-h100:64 or a spec file"),
		           *slash = strrchr(file, '/');

		if (!s)
			return FT_EPARSE;
		/* A spec file is relative to the scenario file. */
		if (s[0] != '/' && slash &&
		    (size_t)snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, s) <
		            sizeof(path) &&
		    access(path, R_OK) == 0)
			s = path;
		rc = ft_spec_resolve(s, &l->sc->spec, &e);
		if (rc < 0 && has_fabric && resolve_for_override(s, &l->sc->spec) == 0)
			rc = 0; /* sized by the fabric block, validated after it */
	}
	if (rc < 0)
		return ft__doc_fail(&l->d, v, rc, "cluster", "%s", e.msg);
	return 0;
}

static int
read_fabric_link(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_fabric_spec *f = &((struct ft_scenario *)obj)->fab;
	const char *s = ft__scenario_text_of(d, v, path, "a link preset");
	const struct ft_link_preset *lp;

	if (!s)
		return FT_EPARSE;
	lp = ft_link_preset_find(s);
	if (!lp)
		return ft__doc_fail(d, v, FT_EPARSE, path,
		                    "expected a link preset (hdr, ndr, xdr, roce100..roce800, spcx400, efa100, "
		                    "tcpx200), "
		                    "got '%s'",
		                    s);
	ft_strlcpy(f->link, lp->name, sizeof(f->link));
	f->link_Bps = lp->rate_Bps;
	f->lat_switch_s = lp->lat_switch_s;
	f->lat_cable_s = lp->lat_cable_s;
	return 0;
}

static int
read_fabric_kind(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const char *const names[] = { "fat_tree", "rail_fat_tree", NULL };
	static const enum ft_fabric_kind kinds[] = { FT_FABRIC_FAT_TREE, FT_FABRIC_RAIL_FAT_TREE };
	static const struct ft__doc_field f = { "kind", FT__DOC_ENUM, 0, sizeof(int),
		                                .names = names };
	int i = 0, rc = ft__doc_read(d, &f, v, path, &i);

	if (rc == 0)
		((struct ft_scenario *)obj)->fab.kind = kinds[i];
	return rc;
}

/* The fabric overrides, each with the FAB_* bit apply_fabric() reads. */
static const struct ft__doc_field fabric_fields[] = {
	{ "kind", FT__DOC_FN, .fn = read_fabric_kind },
	{ "tiers", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, fab.tiers), .lo = 2, .hi = 3 },
	{ "radix", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, fab.radix), .lo = 4, .hi = 1024 },
	{ "oversubscription", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_scenario, fab.oversubscription),
	  .lo = 1, .hi = 64 },
	{ "link", FT__DOC_FN, .fn = read_fabric_link },
};
static const unsigned fabric_bits[] = { FAB_KIND, FAB_TIERS, FAB_RADIX, FAB_OVERSUB, FAB_LINK };
_Static_assert(FT_ARRAY_SIZE(fabric_bits) == FT_ARRAY_SIZE(fabric_fields), "a bit per field");

static void
apply_fabric(const struct ft_scenario *sc, struct ft_fabric_spec *f)
{
	const struct ft_fabric_spec *o = &sc->fab;

	if (sc->fab_mask & FAB_TIERS)
		f->tiers = o->tiers;
	if (sc->fab_mask & FAB_RADIX)
		f->radix = o->radix;
	if (sc->fab_mask & FAB_OVERSUB)
		f->oversubscription = o->oversubscription;
	if (sc->fab_mask & FAB_KIND)
		f->kind = o->kind;
	if (sc->fab_mask & FAB_LINK) {
		ft_strlcpy(f->link, o->link, sizeof(f->link));
		f->link_Bps = o->link_Bps;
		f->lat_switch_s = o->lat_switch_s;
		f->lat_cable_s = o->lat_cable_s;
	}
}

int
ft__spec_scenario_cluster(const struct ft_scenario *sc, const char *arg,
                          struct ft_cluster_spec *out, struct ft_error *err)
{
	int rc = ft_spec_resolve(arg, out, err);

	if (sc->fab_mask == 0)
		return rc;
	if (rc < 0) {
		if (resolve_for_override(arg, out) < 0)
			return rc;
		ft_error_clear(err);
	}
	if (out->fabric.kind == FT_FABRIC_NONE)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: fabric: the cluster has no fabric to change (give a node "
		                    "count: preset:NODES)",
		                    arg);
	apply_fabric(sc, &out->fabric);
	return ft_spec_validate(out, err);
}

/* ---- top level ----------------------------------------------------------------- */

static int
read_engine(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "engine", FT__DOC_STR,
		                                FT__DOC_AT(struct ft_scenario, engine) };
	struct ft_scenario *sc = obj;
	int rc = ft__doc_read(d, &f, v, path, sc);

	if (rc == 0 && !ft_sim_engine_find(sc->engine))
		rc = ft__doc_fail(d, v, FT_EPARSE, path,
		                  "expected analytic, flow, ideal or packet, got '%s'", sc->engine);
	sc->engine_line = (uint32_t)v->start_mark.line + 1;
	sc->engine_col = (uint32_t)v->start_mark.column + 1;
	return rc;
}

static int
read_routing(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_scenario *sc = obj;
	const char *s = ft__scenario_text_of(d, v, path, "a routing");

	if (!s)
		return FT_EPARSE;
	/* Whether it fits the fabric is checked when the cluster is known (run.c). */
	if (ft_routing_from_name(s, &sc->routing) < 0)
		return ft__doc_fail(d, v, FT_EPARSE, path,
		                    "expected ecmp, dmodk, minhop, updn, adaptive, minimal, valiant "
		                    "or dor, got '%s'",
		                    s);
	sc->has_routing = true;
	return 0;
}

/*
 * nccl.version: the NCCL release the jobs run, read and checked as `fabtune sim --nccl`
 * reads it (ft_model_nccl_read_field(): "2.21", a line, or "2.23.4"; 2.18 to 2.30). It
 * rides on the cluster's spec copy, as --nccl's does (spec nccl_version), so every engine
 * asks the model at it; --nccl, given, replaces it (ft_scenario_run()).
 */
static int
read_nccl_version(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_scenario *sc = obj;
	struct ft_error e = { 0 };
	const char *s = ft__scenario_text_of(d, v, path, "a version like 2.21 or 2.23.4");
	uint32_t version = 0;
	int rc;

	if (!s)
		return FT_EPARSE;
	rc = ft_model_nccl_read_field(NULL, s, &version, &e);
	if (rc < 0)
		return ft__doc_fail(d, v, rc, path, "%s", e.msg);
	sc->spec.nccl_version = version;
	/* its place, for the note where the release predates the GPUs (ft_scenario_run()) */
	sc->nccl_line = (uint32_t)v->start_mark.line + 1;
	sc->nccl_col = (uint32_t)v->start_mark.column + 1;
	return 0;
}

static const struct ft__doc_field nccl_fields[] = {
	{ "version", FT__DOC_FN, .fn = read_nccl_version },
};

static int
read_nccl(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	if (v->type != YAML_MAPPING_NODE)
		return ft__doc_expected(d, v, path, "a mapping like {version: \"2.21\"}");
	return ft__doc_walk(d, v, path, nccl_fields, FT_ARRAY_SIZE(nccl_fields), obj, NULL);
}

static const struct ft__doc_field top_fields[] = {
	{ "name", FT__DOC_STR, FT__DOC_AT(struct ft_scenario, name) },
	{ "description", FT__DOC_STR, FT__DOC_AT(struct ft_scenario, description),
	  .what = "a text" },
	{ "seed", FT__DOC_U64, FT__DOC_AT(struct ft_scenario, seed) },
	{ "cluster", FT__DOC_SKIP }, /* loaded first */
	{ "fabric", FT__DOC_SKIP },  /* loaded after the cluster */
	{ "engine", FT__DOC_FN, .fn = read_engine },
	{ "routing", FT__DOC_FN, .fn = read_routing },
	{ "qps_per_connection", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, qps_per_conn), .lo = 1,
	  .hi = 64 },
	{ "flowlet", FT__DOC_SIZE, FT__DOC_AT(struct ft_scenario, flowlet_bytes) },
	{ "fabric_scale", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_scenario, fabric_scale),
	  .lo = 0.001, .hi = 1000 },
	{ "packet", FT__DOC_FN, .fn = ft__scenario_read_packet },
	{ "nccl", FT__DOC_FN, .fn = read_nccl },
	{ "jobs", FT__DOC_FN, .fn = ft__scenario_read_jobs },
	{ "background", FT__DOC_FN, .fn = ft__scenario_read_background },
	{ "faults", FT__DOC_FN, .fn = ft__scenario_read_faults },
};

static struct ft_scenario *
scenario_new(const char *file)
{
	struct ft_scenario *sc = ft_calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	ft_strlcpy(sc->file, file, sizeof(sc->file));
	ft_strlcpy(sc->engine, "flow", sizeof(sc->engine));
	sc->seed = 1;
	sc->qps_per_conn = 1;
	sc->fabric_scale = 1;
	ft_vec_init(&sc->jobs, sizeof(struct sc_job));
	ft_vec_init(&sc->background, sizeof(struct sc_background));
	ft_vec_init(&sc->faults, sizeof(struct sc_fault));
	ft_vec_init(&sc->marks, sizeof(struct sc_mark));
	return sc;
}

static int
load_fabric(struct ld *l, yaml_node_t *fab)
{
	struct ft_scenario *sc = l->sc;
	uint64_t seen = 0;
	size_t i;
	int rc;

	rc = ft__doc_walk(&l->d, fab, "fabric", fabric_fields, FT_ARRAY_SIZE(fabric_fields), sc,
	                  &seen);
	if (rc < 0)
		return rc;
	for (i = 0; i < FT_ARRAY_SIZE(fabric_bits); i++)
		if (seen & (UINT64_C(1) << i))
			sc->fab_mask |= fabric_bits[i];
	apply_fabric(sc, &sc->spec.fabric);
	if (sc->spec.fabric.kind == FT_FABRIC_NONE)
		return ft__doc_fail(&l->d, fab, FT_EINVAL, "fabric",
		                    "the cluster has no fabric to change "
		                    "(give a node count: preset:NODES)");
	rc = ft_spec_validate(&sc->spec, l->d.err);
	if (rc < 0)
		ft_error_prefix(l->d.err, "%s:%zu:%zu: fabric: ", l->d.file,
		                fab->start_mark.line + 1, fab->start_mark.column + 1);
	return rc;
}

static int
load_doc(struct ld *l, yaml_node_t *root)
{
	struct ft_scenario *sc = l->sc;
	yaml_node_t *cl, *fab;
	int rc;

	if (!root || root->type != YAML_MAPPING_NODE)
		return root ? ft__doc_expected(&l->d, root, "scenario", "a mapping at the top") :
		              ft__doc_fail(&l->d, root, FT_EPARSE, "scenario",
		                           "expected a mapping at the top, got nothing");
	cl = ft__doc_lookup(&l->d, root, "cluster");
	if (!cl)
		return ft__doc_fail(&l->d, root, FT_EPARSE, "cluster",
		                    "missing (a preset like dgx-h100:64, "
		                    "a spec file or an inline spec)");
	fab = ft__doc_lookup(&l->d, root, "fabric");
	rc = load_cluster(l, cl, fab != NULL);
	if (rc == 0 && fab)
		rc = load_fabric(l, fab);
	if (rc == 0)
		rc = ft__doc_walk(&l->d, root, "", top_fields, FT_ARRAY_SIZE(top_fields), sc, NULL);
	if (rc < 0)
		return rc;
	if (!sc->name[0]) {
		const char *base = strrchr(sc->file, '/');
		char *dot;

		ft_strlcpy(sc->name, base ? base + 1 : sc->file, sizeof(sc->name));
		dot = strrchr(sc->name, '.');
		if (dot)
			*dot = '\0';
	}
	if (sc->jobs.len == 0 && sc->background.len == 0)
		return ft__doc_fail(&l->d, root, FT_EPARSE, "jobs",
		                    "a scenario needs jobs or background traffic");
	return 0;
}

int
ft_scenario_load_buffer(const char *text, size_t len, const char *file, struct ft_scenario **out,
                        struct ft_error *err)
{
	struct ld l = { .text = text, .len = len };
	int rc;

	*out = NULL;
	rc = ft__doc_open(&l.d, text, len, file ? file : "<scenario>", err);
	if (rc < 0)
		return rc;
	l.sc = scenario_new(l.d.file);
	if (!l.sc) {
		ft__doc_close(&l.d);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	rc = load_doc(&l, ft__doc_root(&l.d));
	ft__doc_close(&l.d);
	if (rc < 0) {
		ft_scenario_free(l.sc);
		return rc;
	}
	*out = l.sc;
	return 0;
}

static int
scenario_text(const char *text, size_t len, const char *path, void *out, struct ft_error *err)
{
	return ft_scenario_load_buffer(text, len, path, out, err);
}

int
ft_scenario_load_file(const char *path, struct ft_scenario **out, struct ft_error *err)
{
	*out = NULL;
	return ft__with_file_text(path, scenario_text, out, err);
}

int
ft_scenario_sniff(const char *path, struct ft_error *err)
{
	struct ft_strbuf sb;
	struct ft_error e = { 0 };
	const char *p;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, &e);
	/* out of memory says nothing of the file: the caller's error, never "not a scenario"
	 * (which reads a scenario as a cluster spec, or refuses it); a file that cannot be
	 * read is not one, and the caller's own read says why */
	if (rc == FT_ENOMEM) {
		ft_strbuf_release(&sb);
		return ft_error_set(err, rc, "%s", e.msg);
	}
	/* A top-level "cluster:" key (at the start of a line) of a file read whole. */
	p = rc == 0 ? sb.buf : NULL;
	rc = 0;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "cluster:", 8) == 0) {
			rc = 1;
			break;
		}
	ft_strbuf_release(&sb);
	return rc;
}

int
ft_scenario_cluster_resolve(const char *arg, struct ft_cluster_spec *out, struct ft_error *err)
{
	struct ft_scenario *sc = NULL;
	int rc = ft_scenario_sniff(arg, err);

	if (rc < 0)
		return rc;
	if (rc == 0)
		return ft_spec_resolve(arg, out, err);
	rc = ft_scenario_load_file(arg, &sc, err);
	if (rc < 0)
		return rc;
	*out = sc->spec;
	ft_scenario_free(sc);
	return 0;
}

void
ft_scenario_free(struct ft_scenario *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < sc->jobs.len; i++)
		ft__scenario_job_release(ft_vec_at(&sc->jobs, i));
	ft_vec_release(&sc->jobs);
	ft_vec_release(&sc->background);
	ft_vec_release(&sc->faults);
	ft_vec_release(&sc->marks);
	ft_free(sc);
}

int
ft_scenario_from_op(const struct ft_sim_sweep_args *a, struct ft_scenario **out,
                    struct ft_error *err)
{
	struct ft_scenario *sc;
	struct sc_job job = { 0 };
	uint64_t b;
	int rc;

	*out = NULL;
	if (a->min_bytes == 0 || a->max_bytes < a->min_bytes)
		return ft_error_set(err, FT_EINVAL, "sizes: expected 0 < -b <= -e");
	if (a->factor != 0 && a->factor < 2)
		return ft_error_set(err, FT_EINVAL, "factor: expected 2 or more, got %g",
		                    a->factor);
	sc = scenario_new(a->spec);
	if (!sc)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	sc->from_options = true;
	rc = ft_scenario_cluster_resolve(a->spec, &sc->spec, err);
	if (rc < 0) {
		ft_scenario_free(sc);
		return rc;
	}
	snprintf(sc->name, sizeof(sc->name), "%s", ft_op_name(a->op));
	ft_vec_init(&job.ops, sizeof(struct sc_op));
	ft_vec_init(&job.explicit_gpus, 2 * sizeof(uint32_t));
	ft_strlcpy(job.name, ft_op_name(a->op), sizeof(job.name));
	job.iterations = 1;
	job.mfu = 0.5;
	job.nvls = true;
	job.nranks = a->nranks;
	for (b = a->min_bytes; b <= a->max_bytes;) {
		struct sc_op op = { .op = a->op,
			            .algo = a->algo,
			            .proto = a->proto,
			            .bytes = b,
			            .repeat = 1,
			            .channels = a->channels,
			            .collnet = a->algo == FT_ALGO_COLLNET ? a->collnet :
			                                                    FT_COLLNET_AUTO };

		if (ft_vec_push(&job.ops, &op) < 0) {
			rc = FT_ENOMEM;
			break;
		}
		if (a->factor == 0 || (double)b * a->factor > (double)UINT64_MAX / 2)
			break;
		b = (uint64_t)((double)b * a->factor);
	}
	if (rc == 0 && ft_vec_push(&sc->jobs, &job) < 0)
		rc = FT_ENOMEM;
	if (rc < 0) {
		ft__scenario_job_release(&job);
		ft_scenario_free(sc);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	*out = sc;
	return 0;
}

/* ---- where errors found after loading point ------------------------------------- */

const char *
ft__scenario_job_where(const struct ft_scenario *sc, size_t ji, const char *opt, char *buf,
                       size_t len, const char *fmt, ...)
{
	const struct sc_job *j = ft_vec_at(&sc->jobs, ji);
	char field[64];
	va_list ap;

	if (sc->from_options || !j) {
		ft_strlcpy(buf, opt, len);
		return buf;
	}
	va_start(ap, fmt);
	vsnprintf(field, sizeof(field), fmt, ap);
	va_end(ap);
	snprintf(buf, len, "%s:%u:%u: jobs[%zu]%s%s", sc->file, j->line, j->col, ji,
	         *field ? "." : "", field);
	return buf;
}

/* The mark of the longest key that begins @msg as a whole word: "packet.pfc_xon: ..."
 * picks packet.pfc_xon over packet; NULL when none does. */
static const struct sc_mark *
mark_for(const struct ft_scenario *sc, const char *msg)
{
	const struct sc_mark *best = NULL;
	size_t i, n, best_n = 0;

	for (i = 0; i < sc->marks.len; i++) {
		const struct sc_mark *m = ft_vec_at(&sc->marks, i);

		n = strlen(m->key);
		if (strncmp(msg, m->key, n) == 0 && msg[n] && strchr(":[,. ", msg[n]) &&
		    n > best_n) {
			best = m;
			best_n = n;
		}
	}
	return best;
}

void
ft__scenario_name_packet_error(const struct ft_scenario *sc, bool engine_option,
                               struct ft_error *err)
{
	const struct sc_mark *m;

	if (!err || strncmp(err->msg, "packet.", 7) != 0)
		return;
	m = mark_for(sc, err->msg);
	if (m)
		ft_error_prefix(err, "%s:%u:%u: ", sc->file, m->line, m->col);
	else if (engine_option)
		ft_error_prefix(err, "--engine packet: ");
	else if (sc->engine_line)
		ft_error_prefix(err, "%s:%u:%u: ", sc->file, sc->engine_line, sc->engine_col);
	else
		ft_error_prefix(err, "%s: ", sc->file);
}
