/* SPDX-License-Identifier: MIT */
/*
 * sim/sweep.c - parameter sweeps of a scenario, split across MPI ranks.
 *
 * A sweep file names a base scenario (relative to the sweep file) and, under
 * `vary`, lists of values for some parameters. Every combination is a point,
 * enumerated in a fixed order (keys as written, the last one varying
 * fastest). Under mpirun (OMPI_COMM_WORLD_SIZE or PMI_SIZE in the
 * environment, and a build with MPI) point i runs on rank i mod size and
 * rank 0 gathers the rendered points in point order; otherwise every point
 * runs here. Either way the gathered document is the same bytes.
 */
#include "sim_int.h"

#include <fabtune/json.h>
#include <fabtune/launch.h>
#include <fabtune/model.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

#if FT_HAVE_MPI
#include <mpi.h>
#endif

#include "spec/doc.h"

#define SWEEP_MAX_DIMS   12
#define SWEEP_MAX_VALUES 64
#define SWEEP_MAX_POINTS 100000

enum dim_kind {
	D_FABRIC_SCALE,
	D_ROUTING,
	D_QPS,
	D_ENGINE,
	D_SEED,
	D_SIZE,
	D_PLACEMENT,
	D_CLUSTER,
	D_FAULTS,
	D_NCCL,
	D_COUNT
};

static const char *const dim_names[D_COUNT] = {
	"fabric_scale", "routing",   "qps",     "engine", "seed",
	"size",         "placement", "cluster", "faults", "nccl",
};

struct dim {
	enum dim_kind kind;
	uint32_t nvalues;
	char values[SWEEP_MAX_VALUES][128];
	uint32_t line[SWEEP_MAX_VALUES], col[SWEEP_MAX_VALUES]; /* each value's place */
};

struct sweep {
	char file[256];
	char scenario[512];
	uint32_t ndims;
	struct dim dims[SWEEP_MAX_DIMS];
	uint64_t npoints;
};

/* What one value of a dimension should have been, or NULL when it reads. */
static const char *
value_problem(enum dim_kind k, const char *v)
{
	struct ft_error e = { 0 };
	enum ft_routing r;
	uint64_t u;
	double d;

	switch (k) {
	case D_FABRIC_SCALE:
		return ft_parse_double(v, &d) < 0 || !(d >= 0.001) || d > 1000 ?
		               "a factor from 0.001 to 1000" :
		               NULL;
	case D_ROUTING:
		return ft_routing_from_name(v, &r) < 0 ||
		                       (r != FT_ROUTING_ECMP && r != FT_ROUTING_DMODK &&
		                        r != FT_ROUTING_MINHOP && r != FT_ROUTING_ADAPTIVE) ?
		               "ecmp, dmodk, minhop or adaptive" :
		               NULL;
	case D_QPS:
		return ft_parse_u64(v, &u) < 0 || u < 1 || u > 64 ? "1 to 64" : NULL;
	case D_ENGINE:
		return !ft_sim_engine_find(v) ? "analytic, flow, ideal or packet" : NULL;
	case D_SEED:
		return ft_parse_u64(v, &u) < 0 ? "a whole number" : NULL;
	case D_SIZE:
		return ft_parse_size(v, &u, &e) < 0 || u == 0 ? "a size like 64MB" : NULL;
	case D_PLACEMENT:
		return strcmp(v, "packed") && strcmp(v, "spread") && strcmp(v, "random") ?
		               "packed, spread or random" :
		               NULL;
	case D_CLUSTER:
		return NULL; /* resolved when the point runs, with its own error */
	case D_FAULTS:
		return strcmp(v, "on") && strcmp(v, "off") ? "on or off" : NULL;
	case D_NCCL:
		return NULL; /* read_dim() reads it with ft_model_nccl_read_field() */
	case D_COUNT:
		break;
	}
	return "a known parameter";
}

/* One dimension under vary: its values, each checked now so a bad one is named with its place. */
static int
read_dim(struct ft__doc *doc, yaml_node_t *v, const char *path, void *obj)
{
	struct sweep *sw = obj;
	const char *key = strrchr(path, '.') + 1;
	struct ft_error e = { 0 };
	yaml_node_item_t *it;
	struct dim *d;
	uint32_t ver;
	int kind, rc;

	for (kind = 0; kind < D_COUNT; kind++)
		if (strcmp(key, dim_names[kind]) == 0)
			break;
	if (sw->ndims >= SWEEP_MAX_DIMS)
		return ft__doc_fail(doc, v, FT_EPARSE, path, "expected fewer parameters, got '%s'",
		                    key);
	if (v->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(doc, v, path, "a list of values");
	d = &sw->dims[sw->ndims++];
	d->kind = (enum dim_kind)kind;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *x = ft__doc_node(doc, *it);
		const char *s, *problem;

		if (!x || x->type != YAML_SCALAR_NODE)
			return ft__doc_expected(doc, x ? x : v, path, "scalar values");
		s = ft__doc_scalar(x);
		if (d->nvalues >= SWEEP_MAX_VALUES || strlen(s) >= sizeof(d->values[0]))
			return ft__doc_fail(doc, x, FT_EPARSE, path,
			                    "expected at most 64 values of 127 bytes, got '%s'", s);
		/* a release: as --nccl and a scenario's nccl.version read it, in their words */
		if (d->kind == D_NCCL && (rc = ft_model_nccl_read_field(NULL, s, &ver, &e)) < 0)
			return ft__doc_fail(doc, x, rc, path, "%s", e.msg);
		problem = value_problem(d->kind, s);
		if (problem)
			return ft__doc_fail(doc, x, FT_EPARSE, path, "expected %s, got '%s'", problem,
			                    s);
		d->line[d->nvalues] = (uint32_t)x->start_mark.line + 1;
		d->col[d->nvalues] = (uint32_t)x->start_mark.column + 1;
		ft_strlcpy(d->values[d->nvalues++], s, sizeof(d->values[0]));
	}
	if (d->nvalues == 0)
		return ft__doc_fail(doc, v, FT_EPARSE, path, "expected at least one value, got []");
	sw->npoints *= d->nvalues;
	if (sw->npoints > SWEEP_MAX_POINTS)
		return ft__doc_fail(doc, v, FT_EPARSE, path,
		                    "expected at most 100000 points in all, got more");
	return 0;
}

/* The dimensions, in the order of enum dim_kind (and of dim_names). */
static const struct ft__doc_field vary_fields[] = {
	{ "fabric_scale", FT__DOC_FN, .fn = read_dim }, { "routing", FT__DOC_FN, .fn = read_dim },
	{ "qps", FT__DOC_FN, .fn = read_dim },          { "engine", FT__DOC_FN, .fn = read_dim },
	{ "seed", FT__DOC_FN, .fn = read_dim },         { "size", FT__DOC_FN, .fn = read_dim },
	{ "placement", FT__DOC_FN, .fn = read_dim },    { "cluster", FT__DOC_FN, .fn = read_dim },
	{ "faults", FT__DOC_FN, .fn = read_dim },       { "nccl", FT__DOC_FN, .fn = read_dim },
};
_Static_assert(FT_ARRAY_SIZE(vary_fields) == D_COUNT, "one vary field per dimension");

static int
read_vary(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	if (v->type != YAML_MAPPING_NODE)
		return ft__doc_expected(d, v, path, "a mapping of parameter: [values]");
	return ft__doc_walk(d, v, path, vary_fields, FT_ARRAY_SIZE(vary_fields), obj, NULL);
}

/* The base scenario, relative to the sweep file unless absolute. */
static int
read_scenario(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct sweep *sw = obj;
	const char *s = ft__doc_scalar(v), *slash = strrchr(sw->file, '/');

	if (!s || ft__doc_is_null(v))
		return ft__doc_expected(d, v, path, "the base scenario file");
	if (s[0] != '/' && slash)
		snprintf(sw->scenario, sizeof(sw->scenario), "%.*s/%s", (int)(slash - sw->file),
		         sw->file, s);
	else
		ft_strlcpy(sw->scenario, s, sizeof(sw->scenario));
	return 0;
}

static const struct ft__doc_field sweep_fields[] = {
	{ "name", FT__DOC_SKIP },
	{ "description", FT__DOC_SKIP },
	{ "scenario", FT__DOC_FN, .fn = read_scenario, .required = true },
	{ "vary", FT__DOC_FN, .fn = read_vary },
};

static int
sweep_load(const char *path, struct sweep *sw, struct ft_error *err)
{
	struct ft__doc d = { 0 };
	yaml_node_t *root;
	uint64_t seen = 0;
	int rc;

	memset(sw, 0, sizeof(*sw));
	sw->npoints = 1;
	ft_strlcpy(sw->file, path, sizeof(sw->file));
	rc = ft__doc_open_file(&d, path, err);
	if (rc < 0)
		return rc;
	root = ft__doc_root(&d);
	if (!root) /* an empty file has no node to point at: its first line */
		rc = ft__doc_fail(&d, NULL, FT_EPARSE, "sweep",
		                  "expected a mapping with scenario and vary, got an empty document");
	else if (root->type != YAML_MAPPING_NODE)
		rc = ft__doc_expected(&d, root, "sweep", "a mapping with scenario and vary");
	else
		rc = ft__doc_walk(&d, root, "", sweep_fields, FT_ARRAY_SIZE(sweep_fields), sw,
		                  &seen);
	if (rc == 0)
		rc = ft__doc_check_required(&d, root, "", sweep_fields, FT_ARRAY_SIZE(sweep_fields),
		                            seen, "expected the base scenario file, got nothing");
	ft__doc_close(&d);
	return rc;
}

static bool
varies(const struct sweep *sw, enum dim_kind k)
{
	for (uint32_t d = 0; d < sw->ndims; d++)
		if (sw->dims[d].kind == k)
			return true;
	return false;
}

/* Point @i: its value index per dimension (last dimension fastest). */
static void
point_values(const struct sweep *sw, uint64_t i, uint32_t *idx)
{
	uint32_t d;

	for (d = sw->ndims; d-- > 0;) {
		idx[d] = (uint32_t)(i % sw->dims[d].nvalues);
		i /= sw->dims[d].nvalues;
	}
}

static void
apply_dim(const struct dim *d, const char *v, struct ft_sim_overrides *ov)
{
	struct ft_error e = { 0 };
	enum ft_routing r;
	uint32_t ver = 0;
	uint64_t u = 0;
	double x = 0;

	switch (d->kind) {
	case D_FABRIC_SCALE:
		if (ft_parse_double(v, &x) == 0)
			ov->fabric_scale = x;
		break;
	case D_ROUTING:
		if (ft_routing_from_name(v, &r) == 0)
			ov->routing = (int)r;
		break;
	case D_QPS:
		if (ft_parse_u64(v, &u) == 0)
			ov->qps_per_conn = (uint32_t)u;
		break;
	case D_ENGINE:
		ov->engine = v;
		break;
	case D_SEED:
		if (ft_parse_u64(v, &u) == 0) {
			ov->have_seed = true;
			ov->seed = u;
		}
		break;
	case D_SIZE:
		if (ft_parse_size(v, &u, &e) == 0)
			ov->bytes = u;
		break;
	case D_PLACEMENT:
		ov->placement = strcmp(v, "packed") == 0 ? 0 : strcmp(v, "spread") == 0 ? 1 : 2;
		break;
	case D_CLUSTER:
		ov->cluster = v;
		break;
	case D_FAULTS:
		ov->no_faults = strcmp(v, "off") == 0;
		break;
	case D_NCCL:
		if (ft_model_nccl_read_field(NULL, v, &ver, &e) == 0)
			ov->nccl_version = ver;
		break;
	case D_COUNT:
		break;
	}
}

/* Where value @k of dimension @d is: "file:line:col". */
static void
value_where(const struct sweep *sw, uint32_t d, uint32_t k, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u:%u", sw->file, sw->dims[d].line[k], sw->dims[d].col[k]);
}

/* Append @msg to @notes (one a line) unless a line already says it. */
static void
note_once(struct ft_strbuf *notes, const char *msg)
{
	size_t n = strlen(msg);
	const char *p = notes->buf;

	while (p && *p) {
		const char *nl = strchr(p, '\n');

		if ((size_t)(nl - p) == n && memcmp(p, msg, n) == 0)
			return;
		p = nl + 1;
	}
	ft_strbuf_adds(notes, msg);
	ft_strbuf_addch(notes, '\n');
}

/*
 * The releases the points run that predate their cluster's GPUs, each said once into
 * @notes (ft_model_nccl_note_text(), as `fabtune sim` says one): every value of an nccl
 * axis, else --nccl's release, else the scenario's nccl.version; on every value of a
 * cluster axis, else the scenario's cluster. A cluster value that does not resolve is
 * left to its point, which names it.
 */
static int
sweep_notes(const struct sweep *sw, const struct ft_scenario *sc,
            const struct ft_sim_overrides *base, struct ft_strbuf *notes)
{
	const struct dim *cd = NULL, *nd = NULL;
	uint32_t d, c, k, ndim = 0;

	for (d = 0; d < sw->ndims; d++) {
		if (sw->dims[d].kind == D_CLUSTER)
			cd = &sw->dims[d];
		if (sw->dims[d].kind == D_NCCL) {
			nd = &sw->dims[d];
			ndim = d;
		}
	}
	for (c = 0; c < (cd ? cd->nvalues : 1); c++) {
		const char *arg = cd ? cd->values[c] : base ? base->cluster : NULL;
		struct ft_cluster_spec spec;
		struct ft_error e = { 0 };

		if (arg && ft__spec_scenario_cluster(sc, arg, &spec, &e) < 0)
			continue;
		if (!arg)
			spec = sc->spec;
		for (k = 0; k < (nd ? nd->nvalues : 1); k++) {
			struct ft_model_nccl_note note;
			char where[320] = "", msg[640];
			const char *field = "nccl.version";
			uint32_t ver = sc->spec.nccl_version;

			if (nd) {
				if (ft_model_nccl_read_field(NULL, nd->values[k], &ver, &e) < 0)
					continue;
				value_where(sw, ndim, k, where, sizeof(where));
				field = "vary.nccl";
			} else if (base && base->nccl_version) {
				ver = base->nccl_version;
				field = "--nccl";
			} else if (sc->nccl_line) {
				snprintf(where, sizeof(where), "%s:%u:%u", sc->file, sc->nccl_line,
				         sc->nccl_col);
			}
			if (!ft_model_nccl_note_get(&spec, ver, &note))
				continue;
			ft_model_nccl_note_text(&note, where, field, msg, sizeof(msg));
			note_once(notes, msg);
		}
	}
	return notes->oom ? FT_ENOMEM : 0;
}

/* Run point @i and render it (compact JSON) into @out. */
static int
run_point(const struct sweep *sw, const struct ft_scenario *sc, const struct ft_sim_overrides *base,
          uint64_t i, bool stable, struct ft_strbuf *out, struct ft_error *err)
{
	struct ft_sim_overrides ov = *base;
	struct ft_sim_report rep;
	struct ft_json j;
	uint32_t idx[SWEEP_MAX_DIMS], d;
	char where[320];
	int rc;

	point_values(sw, i, idx);
	for (d = 0; d < sw->ndims; d++) {
		apply_dim(&sw->dims[d], sw->dims[d].values[idx[d]], &ov);
		if (sw->dims[d].kind == D_NCCL) { /* the point's release is the axis's value */
			value_where(sw, d, idx[d], where, sizeof(where));
			ov.nccl_field = "vary.nccl";
			ov.nccl_where = where;
		}
	}
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, &ov, NULL, &rep, err);
	if (rc < 0) {
		ft_error_prefix(err, "%s: point %" PRIu64 ": ", sw->file, i);
		ft_sim_report_release(&rep);
		return rc;
	}
	ft_json_init(&j, out, false);
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "point", i);
	ft_json_key(&j, "params");
	ft_json_obj_begin(&j);
	for (d = 0; d < sw->ndims; d++)
		ft_json_kv_str(&j, dim_names[sw->dims[d].kind], sw->dims[d].values[idx[d]]);
	ft_json_obj_end(&j);
	ft_json_key(&j, "report");
	/* how long a point took and how much memory, on whichever rank ran it, are left
	   out: the document is the same bytes with or without mpirun */
	ft_sim_report_json(&rep, true, &j);
	ft_json_obj_end(&j);
	ft_sim_report_release(&rep);
	return out->oom ? ft_error_set(err, FT_ENOMEM, "out of memory") : 0;
}

static bool
under_mpirun(void)
{
	struct ft_launch l;

	return ft_launch_detect(NULL, &l, NULL) == 0 && l.mpi && ft_launch_is_parallel(&l);
}

int
ft_sim_sweep_run(const char *path, const struct ft_sim_overrides *base, bool stable,
                 const struct ft_progress *progress, struct ft_strbuf *out,
                 struct ft_strbuf *notes, bool *is_root, struct ft_error *err)
{
	struct sweep *sw;
	struct ft_scenario *sc = NULL;
	struct ft_strbuf *pts = NULL;
	struct ft_json j;
	int rank = 0, size = 1, rc;
	bool mpi = false;
	uint64_t i;

	*is_root = true;
	{
		struct ft_launch l;

		/* srun without PMI: every task would run the whole sweep and print it */
		rc = ft_launch_detect(NULL, &l, err);
		if (rc < 0)
			return rc;
		if (l.launcher == FT_LAUNCHER_SLURM && l.size > 1)
			return ft_error_set(err, FT_EINVAL,
			                    "sweep: srun started %u tasks (%s) without PMI, so they "
			                    "cannot share the points: run srun --mpi=pmix (or pmi2)",
			                    l.size, l.vars);
	}
	sw = ft_calloc(1, sizeof(*sw));
	if (!sw)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
#if FT_HAVE_MPI
	if (under_mpirun()) {
		int inited = 0;

		MPI_Initialized(&inited);
		if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
			ft_free(sw);
			return ft_error_set(err, FT_EMPI, "sweep: MPI_Init failed");
		}
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		mpi = true;
		*is_root = rank == 0;
		{
			struct ft_launch l;

			/* the launcher said N, MPI says 1: another MPI's mpirun */
			if (ft_launch_detect(NULL, &l, NULL) == 0 && l.size > 1 && size == 1) {
				ft_free(sw);
				return ft_error_set(err, FT_EMPI,
				                    "sweep: the environment says %u processes (%s, %s) "
				                    "but MPI sees a world of 1: this fabtune's MPI is "
				                    "not the launcher's",
				                    l.size, ft_launcher_name(l.launcher), l.vars);
			}
		}
	}
#else
	if (under_mpirun()) {
		ft_free(sw);
		return ft_error_set(err, FT_ENOTSUP,
		                    "sweep: launched by mpirun, but this build has no MPI");
	}
#endif
	rc = sweep_load(path, sw, err);
	if (rc == 0 && base && base->nccl_version && varies(sw, D_NCCL))
		/* --nccl wins over a scenario's nccl.version; an axis sets each point's release
		 * over it (apply_dim()), so both given would leave --nccl silently unused */
		rc = ft_error_set(err, FT_EINVAL,
		                  "--nccl: not with %s, which varies nccl (vary.nccl names each "
		                  "point's release)",
		                  path);
	if (rc == 0)
		rc = ft_scenario_load_file(sw->scenario, &sc, err);
	if (rc == 0) {
		pts = ft_calloc(sw->npoints, sizeof(*pts));
		if (!pts)
			rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	for (i = 0; pts && i < sw->npoints; i++)
		ft_strbuf_init(&pts[i]);
	/* This rank's points. A failed point stops the rank; the error travels to rank 0. */
	for (i = (uint64_t)rank; rc == 0 && i < sw->npoints; i += (uint64_t)size) {
		rc = run_point(sw, sc, base, i, stable, &pts[i], err);
		ft_progress_update(progress, "sweep", i + 1, sw->npoints);
	}
#if FT_HAVE_MPI
	if (mpi) {
		/* Each rank ends with a status message to rank 0: 0 ok or its error. */
		int status = rc, all = 0;

		MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (all < 0 && rc == 0)
			rc = ft_error_set(err, all, "sweep: another rank failed");
		if (all == 0) {
			for (i = 0; i < sw->npoints; i++) {
				int owner = (int)(i % (uint64_t)size);
				unsigned long long len;

				if (owner == 0 || (rank != 0 && rank != owner))
					continue;
				if (rank == owner) {
					len = pts[i].len;
					MPI_Send(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, 0,
					         MPI_COMM_WORLD);
					MPI_Send(pts[i].buf, (int)len, MPI_CHAR, 0, 1,
					         MPI_COMM_WORLD);
					continue;
				}
				MPI_Recv(&len, 1, MPI_UNSIGNED_LONG_LONG, owner, 0, MPI_COMM_WORLD,
				         MPI_STATUS_IGNORE);
				ft_strbuf_addchars(&pts[i], ' ', (size_t)len);
				if (pts[i].oom) {
					rc = ft_error_set(err, FT_ENOMEM, "out of memory");
					MPI_Abort(MPI_COMM_WORLD, 3);
				}
				MPI_Recv(pts[i].buf, (int)len, MPI_CHAR, owner, 1, MPI_COMM_WORLD,
				         MPI_STATUS_IGNORE);
			}
		}
	}
#endif
	if (rc == 0 && *is_root && notes && sweep_notes(sw, sc, base, notes) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	if (rc == 0 && *is_root) {
		ft_json_init(&j, out, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "sweep", path);
		ft_json_kv_str(&j, "scenario", sw->scenario);
		ft_json_kv_uint(&j, "points", sw->npoints);
		ft_json_key(&j, "results");
		ft_json_arr_begin(&j);
		for (i = 0; i < sw->npoints; i++)
			ft_json_raw(&j, pts[i].buf);
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(out, '\n');
	}
	for (i = 0; pts && i < sw->npoints; i++)
		ft_strbuf_release(&pts[i]);
	ft_free(pts);
	ft_scenario_free(sc);
	ft_free(sw);
#if FT_HAVE_MPI
	if (mpi)
		MPI_Finalize();
#endif
	FT_UNUSED(mpi);
	return rc;
}
