/* SPDX-License-Identifier: MIT */
/*
 * archive/export.c - runs as JSON, and back.
 *
 * An export is {"format": "fabtune-archive", "version": 2, "runs": [...]}.
 * Each run carries its metadata, fingerprint, rows, observations and
 * findings. Fields are described once in tables (name, type, offset) used
 * both to write and to read, so the two cannot drift apart. Empty strings
 * and absent numbers (NaN) are left out; a reader fills the defaults of
 * ft_result_row_init() and ft_obs_init(). Unknown members are ignored so
 * that a newer export still loads; members of the wrong type are errors
 * naming file:line:column and the field path.
 */
#include "archive_int.h"

enum ftype {
	F_STR,
	F_PSTR, /* const char *: written when not empty; read as a pointer into the parsed
	           JSON, for the caller to intern before the tree is freed */
	F_U64,
	F_I64,
	F_INT,
	F_U32,
	F_DBL
};

struct field {
	const char *name;
	enum ftype type;
	size_t offset;
	size_t size; /* of a string buffer */
};

#define ROW_STR(f)                                             \
	{                                                      \
#f, F_STR, offsetof(struct ft_result_row, f),  \
		        sizeof(((struct ft_result_row *)0)->f) \
	}
#define ROW_NUM(f, t)                                       \
	{                                                   \
#f, t, offsetof(struct ft_result_row, f), 0 \
	}

static const struct field row_fields[] = {
	ROW_STR(test),
	ROW_STR(transport),
	ROW_NUM(bytes, F_U64),
	ROW_NUM(count, F_U64),
	ROW_STR(dtype),
	ROW_STR(redop),
	ROW_NUM(root, F_INT),
	ROW_NUM(nranks, F_U32),
	ROW_NUM(time_us, F_DBL),
	ROW_NUM(algbw_GBps, F_DBL),
	ROW_NUM(busbw_GBps, F_DBL),
	ROW_NUM(ip_time_us, F_DBL),
	ROW_NUM(ip_algbw_GBps, F_DBL),
	ROW_NUM(ip_busbw_GBps, F_DBL),
	ROW_NUM(wrong, F_I64),
	ROW_NUM(lat_min_us, F_DBL),
	ROW_NUM(lat_avg_us, F_DBL),
	ROW_NUM(lat_p50_us, F_DBL),
	ROW_NUM(lat_p99_us, F_DBL),
	ROW_NUM(lat_p999_us, F_DBL),
	ROW_NUM(lat_max_us, F_DBL),
	ROW_NUM(lat_stdev_us, F_DBL),
	ROW_NUM(nsamples, F_U32),
	ROW_NUM(time_stdev_us, F_DBL),
	ROW_NUM(spread_n, F_U32),
	ROW_STR(algo),
	ROW_STR(proto),
	ROW_STR(bottleneck),
	ROW_STR(src),
	ROW_STR(dst),
};

#define OBS_STR(f)                                                                     \
	{                                                                              \
#f, F_STR, offsetof(struct ft_obs, f), sizeof(((struct ft_obs *)0)->f) \
	}
#define OBS_NUM(f, t)                                \
	{                                            \
#f, t, offsetof(struct ft_obs, f), 0 \
	}

/* "num" is handled apart: it is present only when has_num. */
static const struct field obs_fields[] = {
	OBS_STR(host), OBS_STR(device), OBS_NUM(port, F_INT), OBS_NUM(rank, F_INT), OBS_STR(key),
	OBS_STR(str),  OBS_STR(unit),   OBS_NUM(file, F_PSTR), OBS_NUM(line, F_U32),
};

#define FND_STR(f)                                                                             \
	{                                                                                      \
#f, F_STR, offsetof(struct ft_finding, f), sizeof(((struct ft_finding *)0)->f) \
	}

static const struct field finding_fields[] = {
	FND_STR(rule_id), FND_STR(entity), FND_STR(message), FND_STR(fix), FND_STR(kb),
};

/* The integer kinds of a field: size and range. */
static const struct {
	size_t size;
	int64_t min, max;
} int_kinds[] = {
	[F_I64] = { sizeof(int64_t), INT64_MIN, INT64_MAX },
	[F_INT] = { sizeof(int), INT_MIN, INT_MAX },
	[F_U32] = { sizeof(uint32_t), 0, UINT32_MAX },
};

/* The integer field of kind @type (F_I64, F_INT, F_U32) at @p, widened. */
static int64_t
int_get(const char *p, enum ftype type)
{
	int64_t s;
	uint32_t u32;
	int iv;

	if (type == F_INT) {
		memcpy(&iv, p, sizeof(iv));
		return iv;
	}
	if (type == F_U32) {
		memcpy(&u32, p, sizeof(u32));
		return u32;
	}
	memcpy(&s, p, sizeof(s));
	return s;
}

/* Store @v, in the range of @type, into the integer field at @p. */
static void
int_set(char *p, enum ftype type, int64_t v)
{
	uint32_t u32 = (uint32_t)v;
	int iv = (int)v;

	if (type == F_INT)
		memcpy(p, &iv, sizeof(iv));
	else if (type == F_U32)
		memcpy(p, &u32, sizeof(u32));
	else
		memcpy(p, &v, sizeof(v));
}

/* ---- writing ------------------------------------------------------------- */

/* Write the fields of @obj that differ from the defaults in @def. */
static void
write_fields(struct ft_json *j, const void *obj, const void *def, const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *p = (const char *)obj + f[i].offset;
		const char *d = (const char *)def + f[i].offset;
		uint64_t u;
		double v;

		switch (f[i].type) {
		case F_STR:
			if (p[0])
				ft_json_kv_str(j, f[i].name, p);
			break;
		case F_PSTR: {
			const char *sp;

			memcpy(&sp, p, sizeof(sp));
			if (sp && sp[0])
				ft_json_kv_str(j, f[i].name, sp);
			break;
		}
		case F_U64:
			memcpy(&u, p, sizeof(u));
			ft_json_kv_uint(j, f[i].name, u);
			break;
		case F_I64:
		case F_INT:
		case F_U32:
			if (memcmp(p, d, int_kinds[f[i].type].size) == 0)
				break; /* the default */
			if (f[i].type == F_U32)
				ft_json_kv_uint(j, f[i].name, (uint64_t)int_get(p, F_U32));
			else
				ft_json_kv_int(j, f[i].name, int_get(p, f[i].type));
			break;
		case F_DBL:
			memcpy(&v, p, sizeof(v));
			if (!isnan(v))
				ft_json_kv_double(j, f[i].name, v);
			break;
		}
	}
}

void
ft__archive_usage_json(struct ft_json *j, double wall_s, double cpu_s, double host_busy,
                       double load1)
{
	ft_json_key(j, "usage");
	ft_json_obj_begin(j);
	ft_json_kv_double(j, "wall_s", wall_s);
	ft_json_kv_double(j, "cpu_s", cpu_s);
	ft_json_kv_double(j, "host_busy", host_busy);
	ft_json_kv_double(j, "load1", load1);
	ft_json_obj_end(j);
}

static void
write_obs(struct ft_json *j, const struct ft_obs *o)
{
	struct ft_obs def;

	ft_obs_init(&def, "");
	ft_json_obj_begin(j);
	write_fields(j, o, &def, obs_fields, FT_ARRAY_SIZE(obs_fields));
	if (o->has_num)
		ft_json_kv_double(j, "num", o->num);
	ft_json_obj_end(j);
}

void
ft_archive_record_json(const struct ft_archive_record *rec, struct ft_json *j, unsigned flags)
{
	const struct ft_run *run = &rec->run;
	struct ft_result_row defrow;
	size_t i, k;

	ft_result_row_init(&defrow);
	ft_json_obj_begin(j);
	if (!(flags & FT_EXPORT_STABLE)) {
		if (rec->info.id > 0)
			ft_json_kv_int(j, "id", rec->info.id);
		if (rec->info.created_s > 0)
			ft_json_kv_double(j, "created", rec->info.created_s);
	}
	ft_json_kv_str(j, "source", ft_source_name(run->source));
	ft_json_kv_str(j, "kind", run->kind);
	if (run->label[0])
		ft_json_kv_str(j, "label", run->label);
	if (run->spec[0])
		ft_json_kv_str(j, "spec", run->spec);
	if (run->started_s > 0)
		ft_json_kv_double(j, "started", run->started_s);
	if (isfinite(run->wall_s) && !(flags & FT_EXPORT_STABLE))
		ft__archive_usage_json(j, run->wall_s, run->cpu_s, run->host_busy, run->load1);
	if (run->seed)
		ft_json_kv_uint(j, "seed", run->seed);
	ft_json_key(j, "fingerprint");
	ft_json_obj_begin(j);
	for (i = 0; i < ft_fingerprint_len(&rec->fp); i++)
		ft_json_kv_str(j, ft_fingerprint_at(&rec->fp, i)->key,
		               ft_fingerprint_at(&rec->fp, i)->value);
	ft_json_obj_end(j);
	ft_json_key(j, "rows");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_run_nrows(run); i++) {
		ft_json_obj_begin(j);
		write_fields(j, ft_run_row(run, i), &defrow, row_fields, FT_ARRAY_SIZE(row_fields));
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_key(j, "observations");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_obs_set_len(&rec->obs); i++)
		write_obs(j, ft_obs_set_at(&rec->obs, i));
	ft_json_arr_end(j);
	ft_json_key(j, "findings");
	ft_json_arr_begin(j);
	for (i = 0; i < rec->findings.len; i++) {
		const struct ft_finding *f = ft_vec_at(&rec->findings, i);
		struct ft_finding def;

		memset(&def, 0, sizeof(def));
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "rule_id", f->rule_id);
		ft_json_kv_str(j, "layer", ft_layer_name(f->layer));
		ft_json_kv_str(j, "severity", ft_severity_name(f->severity));
		write_fields(j, f, &def, finding_fields + 1, FT_ARRAY_SIZE(finding_fields) - 1);
		ft_json_key(j, "evidence");
		ft_json_arr_begin(j);
		for (k = 0; k < FT_MIN(f->nevidence, FT_FINDING_MAX_EVIDENCE); k++)
			write_obs(j, &f->evidence[k]);
		ft_json_arr_end(j);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_obj_end(j);
}

int
ft_archive_export(struct ft_archive *ar, const int64_t *ids, size_t nids, struct ft_strbuf *out,
                  unsigned flags, struct ft_error *err)
{
	struct ft_json j;
	size_t i;
	int rc = 0;

	ft_json_init(&j, out, true);
	ft_json_obj_begin(&j);
	/* the schema first, as every JSON document fabtune writes, also to a file */
	ft_json_kv_str(&j, "schema", "fabtune.archive.export/1");
	ft_json_kv_str(&j, "format", "fabtune-archive");
	ft_json_kv_int(&j, "version", FT_ARCHIVE_SCHEMA_VERSION);
	ft_json_key(&j, "runs");
	ft_json_arr_begin(&j);
	for (i = 0; rc == 0 && i < nids; i++) {
		struct ft_archive_record rec;

		rc = ft_archive_load(ar, ids[i], &rec, err);
		if (rc == 0) {
			ft_archive_record_json(&rec, &j, flags);
			ft_archive_record_release(&rec);
		}
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(out, '\n');
	if (rc == 0 && out->oom)
		rc = ft_error_set(err, FT_ENOMEM, "export: out of memory");
	return rc;
}

/* ---- reading ------------------------------------------------------------- */

struct ctx {
	const char *file;
	struct ft_error *err;
};

/* A field path for messages ("runs[0].rows[3].bytes"); truncation is harmless. */
static void FT_PRINTF(3, 4) subpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int
type_error(const struct ctx *c, const struct ft_jv *v, const char *path, const char *want)
{
	return ft_error_set(c->err, FT_EPARSE, "%s:%u:%u: %s: expected %s, got %s", c->file,
	                    v->line, v->col, path, want, ft__json_type_name(v->type));
}

static int
read_string(const struct ctx *c, const struct ft_jv *v, const char *path, char *buf, size_t size)
{
	if (v->type != FT_JV_STRING)
		return type_error(c, v, path, "a string");
	if (strlen(v->str) >= size)
		return ft_error_set(c->err, FT_ERANGE, "%s:%u:%u: %s: longer than %zu bytes",
		                    c->file, v->line, v->col, path, size - 1);
	ft_strlcpy(buf, v->str, size);
	return 0;
}

static int
read_int(const struct ctx *c, const struct ft_jv *v, const char *path, int64_t lo, int64_t hi,
         int64_t *out)
{
	if (v->type != FT_JV_NUMBER || ft_parse_i64(v->numtext, out) < 0)
		return type_error(c, v, path, "an integer");
	if (*out < lo || *out > hi)
		return ft_error_set(c->err, FT_ERANGE,
		                    "%s:%u:%u: %s: %" PRId64 " is out of range [%" PRId64
		                    ", %" PRId64 "]",
		                    c->file, v->line, v->col, path, *out, lo, hi);
	return 0;
}

static int
read_fields(const struct ctx *c, const struct ft_jv *o, const char *path, void *obj,
            const struct field *f, size_t n)
{
	char sub[160];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < n; i++) {
		const struct ft_jv *v = ft__json_get(o, f[i].name);
		char *p = (char *)obj + f[i].offset;
		int64_t s;
		uint64_t u;

		if (!v)
			continue;
		subpath(sub, sizeof(sub), "%s.%s", path, f[i].name);
		switch (f[i].type) {
		case F_STR:
			rc = read_string(c, v, sub, p, f[i].size);
			break;
		case F_PSTR:
			if (v->type != FT_JV_STRING)
				rc = type_error(c, v, sub, "a string");
			else
				memcpy(p, &v->str, sizeof(v->str));
			break;
		case F_U64:
			if (v->type != FT_JV_NUMBER || ft_parse_u64(v->numtext, &u) < 0)
				rc = type_error(c, v, sub, "a non-negative integer");
			else
				memcpy(p, &u, sizeof(u));
			break;
		case F_I64:
		case F_INT:
		case F_U32:
			rc = read_int(c, v, sub, int_kinds[f[i].type].min, int_kinds[f[i].type].max,
			              &s);
			if (rc == 0)
				int_set(p, f[i].type, s);
			break;
		case F_DBL:
			if (v->type == FT_JV_NULL) {
				double nan = NAN;

				memcpy(p, &nan, sizeof(nan));
			} else if (v->type == FT_JV_NUMBER) {
				memcpy(p, &v->num, sizeof(v->num));
			} else {
				rc = type_error(c, v, sub, "a number or null");
			}
			break;
		}
	}
	return rc;
}

static int
read_obs(const struct ctx *c, const struct ft_jv *v, const char *path, struct ft_obs *o)
{
	const struct ft_jv *num;
	char sub[160];
	int rc;

	ft_obs_init(o, "");
	if (v->type != FT_JV_OBJECT)
		return type_error(c, v, path, "an object");
	rc = read_fields(c, v, path, o, obs_fields, FT_ARRAY_SIZE(obs_fields));
	if (rc < 0)
		return rc;
	if (!o->key[0])
		return ft_error_set(c->err, FT_EPARSE, "%s:%u:%u: %s.key: missing", c->file,
		                    v->line, v->col, path);
	num = ft__json_get(v, "num");
	if (num && num->type == FT_JV_NUMBER) {
		o->has_num = true;
		o->num = num->num;
	} else if (num && num->type != FT_JV_NULL) {
		subpath(sub, sizeof(sub), "%s.num", path);
		return type_error(c, num, sub, "a number or null");
	}
	return 0;
}

static const struct ft_jv *
array_member(const struct ctx *c, const struct ft_jv *o, const char *name, const char *path,
             int *rc)
{
	const struct ft_jv *v = ft__json_get(o, name);
	char sub[160];

	*rc = 0;
	if (!v || v->type == FT_JV_NULL)
		return NULL;
	if (v->type != FT_JV_ARRAY) {
		subpath(sub, sizeof(sub), "%s.%s", path, name);
		*rc = type_error(c, v, sub, "an array");
		return NULL;
	}
	return v;
}

static int
read_finding(const struct ctx *c, const struct ft_jv *v, const char *path, struct ft_finding *f)
{
	const struct ft_jv *ev, *e;
	char sub[160], name[32];
	size_t k;
	int rc, x;

	memset(f, 0, sizeof(*f));
	if (v->type != FT_JV_OBJECT)
		return type_error(c, v, path, "an object");
	rc = read_fields(c, v, path, f, finding_fields, FT_ARRAY_SIZE(finding_fields));
	if (rc == 0 && (e = ft__json_get(v, "layer")) != NULL) {
		subpath(sub, sizeof(sub), "%s.layer", path);
		rc = read_string(c, e, sub, name, sizeof(name));
		if (rc == 0 && (x = ft__layer_from_name(name)) < 0)
			rc = ft_error_set(c->err, FT_EPARSE,
			                  "%s:%u:%u: %s: unknown layer '%s' (application, "
			                  "communication library, OS/driver, firmware/hardware, "
			                  "fabric)",
			                  c->file, e->line, e->col, sub, name);
		else if (rc == 0)
			f->layer = (enum ft_layer)x;
	}
	if (rc == 0 && (e = ft__json_get(v, "severity")) != NULL) {
		subpath(sub, sizeof(sub), "%s.severity", path);
		rc = read_string(c, e, sub, name, sizeof(name));
		if (rc == 0 && (x = ft__severity_from_name(name)) < 0)
			rc = ft_error_set(c->err, FT_EPARSE,
			                  "%s:%u:%u: %s: unknown severity '%s' (info, warning, "
			                  "error, critical)",
			                  c->file, e->line, e->col, sub, name);
		else if (rc == 0)
			f->severity = (enum ft_severity)x;
	}
	if (rc == 0)
		ev = array_member(c, v, "evidence", path, &rc);
	else
		ev = NULL;
	if (rc == 0 && ev && ev->n > FT_FINDING_MAX_EVIDENCE)
		rc = ft_error_set(c->err, FT_ERANGE, "%s:%u:%u: %s.evidence: at most %d items",
		                  c->file, ev->line, ev->col, path, FT_FINDING_MAX_EVIDENCE);
	for (k = 0; rc == 0 && ev && k < ev->n; k++) {
		subpath(sub, sizeof(sub), "%s.evidence[%zu]", path, k);
		rc = read_obs(c, ev->items[k], sub, &f->evidence[k]);
		f->nevidence = k + 1;
	}
	return rc;
}

/* "usage": {"wall_s", "cpu_s", "host_busy", "load1"}, each a number or null. */
static int
read_usage(const struct ctx *c, const struct ft_jv *v, const char *path, struct ft_run *run)
{
	static const char *const keys[] = { "wall_s", "cpu_s", "host_busy", "load1" };
	double *dst[] = { &run->wall_s, &run->cpu_s, &run->host_busy, &run->load1 };
	char sub[160];
	size_t i;

	if (v->type != FT_JV_OBJECT) {
		subpath(sub, sizeof(sub), "%s.usage", path);
		return type_error(c, v, sub, "an object");
	}
	for (i = 0; i < FT_ARRAY_SIZE(keys); i++) {
		const struct ft_jv *e = ft__json_get(v, keys[i]);

		if (!e || e->type == FT_JV_NULL)
			continue;
		subpath(sub, sizeof(sub), "%s.usage.%s", path, keys[i]);
		if (e->type != FT_JV_NUMBER)
			return type_error(c, e, sub, "a number or null");
		*dst[i] = e->num;
	}
	return 0;
}

static int
read_meta(const struct ctx *c, const struct ft_jv *v, const char *path,
          struct ft_archive_record *rec)
{
	const struct ft_jv *e;
	char sub[160], source[16];
	int64_t s;
	int rc = 0;

	e = ft__json_get(v, "source");
	if (!e)
		return ft_error_set(c->err, FT_EPARSE,
		                    "%s:%u:%u: %s.source: missing (bench, "
		                    "import, sim or model)",
		                    c->file, v->line, v->col, path);
	subpath(sub, sizeof(sub), "%s.source", path);
	rc = read_string(c, e, sub, source, sizeof(source));
	if (rc == 0 && ft_source_from_name(source, &rec->run.source) < 0)
		rc = ft_error_set(c->err, FT_EPARSE,
		                  "%s:%u:%u: %s: unknown source '%s' (bench, import, sim or model)",
		                  c->file, e->line, e->col, sub, source);
	ft_strlcpy(rec->run.kind, source, sizeof(rec->run.kind));
	if (rc == 0 && (e = ft__json_get(v, "kind")) != NULL) {
		subpath(sub, sizeof(sub), "%s.kind", path);
		rc = read_string(c, e, sub, rec->run.kind, sizeof(rec->run.kind));
	}
	if (rc == 0 && (e = ft__json_get(v, "label")) != NULL) {
		subpath(sub, sizeof(sub), "%s.label", path);
		rc = read_string(c, e, sub, rec->run.label, sizeof(rec->run.label));
	}
	if (rc == 0 && (e = ft__json_get(v, "spec")) != NULL) {
		subpath(sub, sizeof(sub), "%s.spec", path);
		rc = read_string(c, e, sub, rec->run.spec, sizeof(rec->run.spec));
	}
	if (rc == 0 && (e = ft__json_get(v, "seed")) != NULL) {
		subpath(sub, sizeof(sub), "%s.seed", path);
		if (e->type != FT_JV_NUMBER || ft_parse_u64(e->numtext, &rec->run.seed) < 0)
			rc = type_error(c, e, sub, "a non-negative integer");
	}
	if (rc == 0 && (e = ft__json_get(v, "started")) != NULL) {
		subpath(sub, sizeof(sub), "%s.started", path);
		if (e->type != FT_JV_NUMBER)
			rc = type_error(c, e, sub, "a number (Unix seconds)");
		else
			rec->run.started_s = e->num;
	}
	if (rc == 0 && (e = ft__json_get(v, "usage")) != NULL)
		rc = read_usage(c, e, path, &rec->run);
	if (rc == 0 && (e = ft__json_get(v, "id")) != NULL) {
		subpath(sub, sizeof(sub), "%s.id", path);
		rc = read_int(c, e, sub, 0, INT64_MAX, &s);
		rec->info.id = s;
	}
	if (rc == 0 && (e = ft__json_get(v, "created")) != NULL && e->type == FT_JV_NUMBER)
		rec->info.created_s = e->num;
	return rc;
}

static int
read_record(const struct ctx *c, const struct ft_jv *v, const char *path,
            struct ft_archive_record *rec)
{
	const struct ft_jv *fp, *arr;
	char sub[160];
	size_t i;
	int rc;

	if (v->type != FT_JV_OBJECT)
		return type_error(c, v, path, "an object");
	rc = read_meta(c, v, path, rec);
	fp = rc == 0 ? ft__json_get(v, "fingerprint") : NULL;
	if (fp && fp->type != FT_JV_OBJECT) {
		subpath(sub, sizeof(sub), "%s.fingerprint", path);
		rc = type_error(c, fp, sub, "an object");
	}
	for (i = 0; rc == 0 && fp && i < fp->n; i++) {
		char value[256];

		subpath(sub, sizeof(sub), "%s.fingerprint.%s", path, fp->keys[i]);
		rc = read_string(c, fp->items[i], sub, value, sizeof(value));
		if (rc == 0 && (strlen(fp->keys[i]) == 0 || strlen(fp->keys[i]) >= 64))
			rc = ft_error_set(c->err, FT_EPARSE,
			                  "%s:%u:%u: %s: key must have 1 to 63 "
			                  "characters",
			                  c->file, fp->items[i]->line, fp->items[i]->col, sub);
		if (rc == 0 && ft_fingerprint_set(&rec->fp, fp->keys[i], value) < 0)
			rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	arr = rc == 0 ? array_member(c, v, "rows", path, &rc) : NULL;
	for (i = 0; rc == 0 && arr && i < arr->n; i++) {
		struct ft_result_row row;

		subpath(sub, sizeof(sub), "%s.rows[%zu]", path, i);
		ft_result_row_init(&row);
		if (arr->items[i]->type != FT_JV_OBJECT)
			rc = type_error(c, arr->items[i], sub, "an object");
		else
			rc = read_fields(c, arr->items[i], sub, &row, row_fields,
			                 FT_ARRAY_SIZE(row_fields));
		if (rc == 0 && !row.test[0])
			rc = ft_error_set(c->err, FT_EPARSE, "%s:%u:%u: %s.test: missing", c->file,
			                  arr->items[i]->line, arr->items[i]->col, sub);
		if (rc == 0 && ft_run_add(&rec->run, &row) < 0)
			rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	arr = rc == 0 ? array_member(c, v, "observations", path, &rc) : NULL;
	for (i = 0; rc == 0 && arr && i < arr->n; i++) {
		struct ft_obs o;

		subpath(sub, sizeof(sub), "%s.observations[%zu]", path, i);
		rc = read_obs(c, arr->items[i], sub, &o);
		if (rc == 0 && ft_obs_set_add(&rec->obs, &o) < 0)
			rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	arr = rc == 0 ? array_member(c, v, "findings", path, &rc) : NULL;
	for (i = 0; rc == 0 && arr && i < arr->n; i++) {
		struct ft_finding f;

		subpath(sub, sizeof(sub), "%s.findings[%zu]", path, i);
		rc = read_finding(c, arr->items[i], sub, &f);
		/* the files of the evidence are held by the record's observation set */
		for (size_t k = 0; rc == 0 && k < f.nevidence; k++)
			if (ft_obs_intern(&rec->obs.files, &f.evidence[k]) < 0)
				rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
		if (rc == 0 && ft_vec_push(&rec->findings, &f) < 0)
			rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	if (rc == 0) {
		FT__ARCHIVE_COPY_IDENTITY(&rec->info, &rec->run);
		ft_strlcpy(rec->info.host,
		           ft_fingerprint_get(&rec->fp, "host.name") ?
		                   ft_fingerprint_get(&rec->fp, "host.name") :
		                   "",
		           sizeof(rec->info.host));
		ft_fingerprint_digest(&rec->fp, rec->info.fp_digest);
		rec->info.nrows = ft_run_nrows(&rec->run);
		rec->info.nobs = ft_obs_set_len(&rec->obs);
		rec->info.nfindings = rec->findings.len;
	}
	return rc;
}

/* A number's text as an error shows it: at most its first 40 bytes and "…", so that
   one of up to FT__JSON_NUM_MAX bytes leaves the rest of the message whole. */
static const char *
num_shown(const char *numtext, char buf[48])
{
	if (strlen(numtext) <= 40)
		return numtext;
	snprintf(buf, 48, "%.40s\xe2\x80\xa6", numtext); /* "…" */
	return buf;
}

int
ft_archive_parse_export(const char *text, size_t len, const char *file, struct ft_vec *records,
                        struct ft_error *err)
{
	struct ctx c = { file ? file : "<input>", err };
	const struct ft_jv *fmt, *ver, *runs;
	struct ft_arena arena;
	struct ft_jv *root;
	size_t i, start = records->len;
	char path[32], num[48];
	int rc;

	ft_arena_init(&arena, 0);
	rc = ft__json_parse(text, len, c.file, &arena, &root, err);
	if (rc < 0)
		goto out;
	if (root->type != FT_JV_OBJECT) {
		rc = type_error(&c, root, "top level", "an object");
		goto out;
	}
	fmt = ft__json_get(root, "format");
	if (!fmt || fmt->type != FT_JV_STRING || strcmp(fmt->str, "fabtune-archive") != 0) {
		rc = ft_error_set(err, FT_EPARSE,
		                  "%s:%u:%u: format: expected \"fabtune-archive\" (not a fabtune "
		                  "export)",
		                  c.file, fmt ? fmt->line : root->line, fmt ? fmt->col : root->col);
		goto out;
	}
	/* an export from a newer fabtune may hold fields this one would silently drop */
	ver = ft__json_get(root, "version");
	if (!ver || ver->type != FT_JV_NUMBER || ver->num != floor(ver->num) || ver->num < 1) {
		rc = ft_error_set(
		        err, FT_EPARSE,
		        "%s:%u:%u: version: expected the export's version, a whole number "
		        "from 1 to %d, got %s",
		        c.file, ver ? ver->line : root->line, ver ? ver->col : root->col,
		        FT_ARCHIVE_SCHEMA_VERSION,
		        !ver                      ? "none" :
		        ver->type == FT_JV_NUMBER ? num_shown(ver->numtext, num) :
		                                    ft__json_type_name(ver->type));
		goto out;
	}
	if (ver->num > FT_ARCHIVE_SCHEMA_VERSION) {
		rc = ft_error_set(err, FT_EPARSE,
		                  "%s:%u:%u: version: export version %s is from a newer fabtune "
		                  "(this one reads up to %d); nothing was imported",
		                  c.file, ver->line, ver->col, num_shown(ver->numtext, num),
		                  FT_ARCHIVE_SCHEMA_VERSION);
		goto out;
	}
	runs = ft__json_get(root, "runs");
	if (!runs || runs->type != FT_JV_ARRAY) {
		rc = runs ? type_error(&c, runs, "runs", "an array") :
		            ft_error_set(err, FT_EPARSE, "%s:%u:%u: runs: missing", c.file,
		                         root->line, root->col);
		goto out;
	}
	for (i = 0; rc == 0 && i < runs->n; i++) {
		struct ft_archive_record rec;

		ft_archive_record_init(&rec);
		snprintf(path, sizeof(path), "runs[%zu]", i);
		rc = read_record(&c, runs->items[i], path, &rec);
		if (rc == 0 && ft_vec_push(records, &rec) < 0)
			rc = ft_error_set(err, FT_ENOMEM, "%s: out of memory", c.file);
		if (rc < 0)
			ft_archive_record_release(&rec);
	}
	if (rc < 0) {
		for (i = start; i < records->len; i++)
			ft_archive_record_release(ft_vec_at(records, i));
		records->len = start;
	}
out:
	ft_arena_release(&arena);
	return rc;
}

int
ft_archive_import(struct ft_archive *ar, const char *text, size_t len, const char *file,
                  struct ft_vec *ids, struct ft_error *err)
{
	struct ft_vec records;
	size_t i, start = ids->len;
	int rc;

	ft_vec_init(&records, sizeof(struct ft_archive_record));
	rc = ft_archive_parse_export(text, len, file, &records, err);
	if (rc < 0)
		return rc;
	rc = ft__archive_begin(ar, err);
	for (i = 0; rc == 0 && i < records.len; i++) {
		const struct ft_archive_record *rec = ft_vec_at(&records, i);
		int64_t id;

		rc = ft__archive_insert(ar, &rec->run, &rec->obs, rec->findings.data,
		                        rec->findings.len, &rec->fp, &id, err);
		if (rc == 0 && ft_vec_push(ids, &id) < 0)
			rc = ft_error_set(err, FT_ENOMEM, "import: out of memory");
	}
	if (rc == 0)
		rc = ft__archive_commit(ar, err);
	if (rc < 0) {
		ft__archive_rollback(ar);
		ids->len = start;
	}
	ft_archive_records_release(&records);
	return rc;
}
