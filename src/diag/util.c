/* SPDX-License-Identifier: MIT */
/*
 * diag/util.c - lookups over observations and the finding builder shared by
 * the rule files.
 */
#include "internal.h"

#include <fnmatch.h>

#include "diag/diag_int.h"

bool
ft__str_ieq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

bool
ft__str_icontains(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

bool
ft__str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
ft__key_match(const char *key, const char *pat)
{
	if (strpbrk(pat, "*["))
		return fnmatch(pat, key, 0) == 0;
	return strcmp(key, pat) == 0;
}

/* ---- the key index -------------------------------------------------------- */

/* The index orders observations by key, host, device, port, then position. */
static int
cmp_obs(const struct ft_obs *a, const struct ft_obs *b, int level)
{
	int c = strcmp(a->key, b->key);

	if (c || level < 2)
		return c;
	c = strcmp(a->host, b->host);
	if (c)
		return c;
	c = strcmp(a->device, b->device);
	if (c || level < 3)
		return c;
	return a->port < b->port ? -1 : a->port > b->port;
}

struct keyed {
	const struct ft_obs *o;
	size_t idx;
};

static int
cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = cmp_obs(a->o, b->o, 3);

	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int
ft__diag_ctx_init(struct ft_diag_ctx *c, const struct ft_diag_input *in)
{
	size_t i, n = ft_obs_set_len(in->obs);
	struct keyed *tmp;
	size_t *order;

	c->obs = in->obs;
	c->expect = in->expect;
	c->nexpect = in->nexpect;
	c->thresholds = in->thresholds ? in->thresholds : &ft__diag_default_thresholds;
	c->rule = NULL;
	c->by_key = NULL;
	if (!n)
		return 0;
	order = ft_calloc(n, sizeof(*order));
	tmp = ft_calloc(n, sizeof(*tmp));
	if (!order || !tmp) {
		ft_free(order);
		ft_free(tmp);
		return FT_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		tmp[i].o = ft_obs_set_at(in->obs, i);
		tmp[i].idx = i;
	}
	qsort(tmp, n, sizeof(*tmp), cmp_keyed);
	for (i = 0; i < n; i++)
		order[i] = tmp[i].idx;
	ft_free(tmp);
	c->by_key = order;
	return 0;
}

void
ft__diag_ctx_release(struct ft_diag_ctx *c)
{
	ft_free((void *)c->by_key);
	c->by_key = NULL;
}

/* First index position whose observation is >= @probe on the first @level fields. */
static size_t
lower_bound(const struct ft_diag_ctx *c, const struct ft_obs *probe, int level)
{
	size_t lo = 0, hi = ft__nobs(c);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_obs(ft__obs(c, c->by_key[mid]), probe, level) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The earliest observation (in input order) with @key, equal to @like on the
 * first @level fields (1: key only, 2: host and device, 3: and port), that
 * @pred accepts. Exact keys use the index; patterns scan everything.
 */
static const struct ft_obs *
find_where(const struct ft_diag_ctx *c, const char *key, const struct ft_obs *like, int level,
	   bool (*pred)(const struct ft_obs *o, const struct ft_obs *like))
{
	const struct ft_obs *best = NULL;
	size_t i, best_idx = SIZE_MAX;

	if (c->by_key && !strpbrk(key, "*[")) {
		struct ft_obs probe;

		ft_strlcpy(probe.key, key, sizeof(probe.key));
		if (like) {
			memcpy(probe.host, like->host, sizeof(probe.host));
			memcpy(probe.device, like->device, sizeof(probe.device));
			probe.port = like->port;
		}
		for (i = lower_bound(c, &probe, like ? level : 1); i < ft__nobs(c); i++) {
			size_t idx = c->by_key[i];
			const struct ft_obs *o = ft__obs(c, idx);

			if (cmp_obs(o, &probe, like ? level : 1) != 0)
				break;
			if (idx < best_idx && (!pred || pred(o, like))) {
				best = o;
				best_idx = idx;
			}
		}
		return best;
	}
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (ft__key_match(o->key, key) && (!pred || pred(o, like)))
			return o;
	}
	return NULL;
}

const struct ft_obs *
ft__diag_next(const struct ft_diag_ctx *c, const char *key, size_t *pos)
{
	struct ft_obs probe;

	if (!c->by_key) {
		/* No index: a plain scan in input order. */
		while (*pos < ft__nobs(c)) {
			const struct ft_obs *o = ft__obs(c, (*pos)++);

			if (strcmp(o->key, key) == 0)
				return o;
		}
		return NULL;
	}
	if (*pos == 0) {
		ft_strlcpy(probe.key, key, sizeof(probe.key));
		*pos = lower_bound(c, &probe, 1);
	}
	if (*pos < ft__nobs(c) && strcmp(ft__obs(c, c->by_key[*pos])->key, key) == 0)
		return ft__obs(c, c->by_key[(*pos)++]);
	*pos = ft__nobs(c);
	return NULL;
}

const struct ft_obs *
ft__diag_find(const struct ft_diag_ctx *c, const char *key)
{
	return find_where(c, key, NULL, 1, NULL);
}

bool
ft__same_port(const struct ft_obs *a, const struct ft_obs *b)
{
	return strcmp(a->host, b->host) == 0 && strcmp(a->device, b->device) == 0 &&
	       a->port == b->port;
}

static bool
same_dev(const struct ft_obs *o, const struct ft_obs *like)
{
	return strcmp(o->host, like->host) == 0 && strcmp(o->device, like->device) == 0;
}

static bool
same_line(const struct ft_obs *o, const struct ft_obs *like)
{
	return ft__same_port(o, like) && o->line == like->line && strcmp(o->file, like->file) == 0;
}

const struct ft_obs *
ft__diag_find_same(const struct ft_diag_ctx *c, const char *key, const struct ft_obs *like)
{
	return find_where(c, key, like, 3, ft__same_port);
}

const struct ft_obs *
ft__diag_find_dev(const struct ft_diag_ctx *c, const char *key, const struct ft_obs *like)
{
	return find_where(c, key, like, 2, same_dev);
}

const struct ft_obs *
ft__diag_find_line(const struct ft_diag_ctx *c, const char *key, const struct ft_obs *like)
{
	return find_where(c, key, like, 3, same_line);
}

const struct ft_obs *
ft__diag_env(const struct ft_diag_ctx *c, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "nccl.env.%s", name);
	return ft__diag_find(c, key);
}

bool
ft__obs_number(const struct ft_obs *o, double *out)
{
	char *end;
	double v;

	if (o->has_num) {
		*out = o->num;
		return true;
	}
	if (!o->str[0])
		return false;
	errno = 0;
	v = strtod(o->str, &end);
	if (end == o->str || errno)
		return false;
	while (*end == ' ')
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

bool
ft__port_state_active(const char *s)
{
	return ft__str_icontains(s, "active") && !ft__str_icontains(s, "inactive");
}

bool
ft__diag_has_roce(const struct ft_diag_ctx *c)
{
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "ib.port.link_layer") == 0 && ft__str_ieq(o->str, "Ethernet"))
			return true;
		if (strcmp(o->key, "nccl.ib_hca") == 0 && strstr(o->str, "/RoCE"))
			return true;
		if (ft__str_has_prefix(o->key, "roce."))
			return true;
		/*
		 * The GID of a failing NCCL QP: an IPv4-mapped or routable IPv6 address
		 * is a RoCE v2 GID; InfiniBand GIDs carry the subnet prefix (fe80::
		 * by default, fec0:: on site-local subnets) (ROCE-GID).
		 */
		if (strcmp(o->key, "nccl.ib.local_gid") == 0 &&
		    (strstr(o->str, "::ffff:") || strchr(o->str, '.') ||
		     !(ft__str_has_prefix(o->str, "fe8") || ft__str_has_prefix(o->str, "fec"))))
			return true;
	}
	return false;
}

bool
ft__diag_has_active_ib(const struct ft_diag_ctx *c)
{
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ll;

		if (strcmp(o->key, "ib.port.state") != 0 || !ft__port_state_active(o->str))
			continue;
		ll = ft__diag_find_same(c, "ib.port.link_layer", o);
		if (!ll || ft__str_ieq(ll->str, "InfiniBand"))
			return true;
	}
	return false;
}

int
ft__diag_nccl_version(const struct ft_diag_ctx *c, const struct ft_obs **where)
{
	const struct ft_obs *o = ft__diag_find(c, "nccl.version");
	unsigned a = 0, b = 0, p = 0;

	if (where)
		*where = o;
	if (!o || sscanf(o->str, "%u.%u.%u", &a, &b, &p) < 2)
		return 0;
	return (int)(a * 10000 + b * 100 + p);
}

static int
diag_vemit(const struct ft_diag_ctx *c, struct ft_findings *out, int sev, const char *fix,
	   const struct ft_obs *const *ev, size_t nev, const char *fmt, va_list ap)
{
	const struct ft_rule *r = c->rule;
	struct ft_finding *f;
	size_t i;
	int rc;

	f = ft_calloc(1, sizeof(*f));
	if (!f)
		return FT_ENOMEM;
	ft_strlcpy(f->rule_id, r->id, sizeof(f->rule_id));
	f->layer = r->layer;
	f->severity = sev < 0 ? r->severity : (enum ft_severity)sev;
	ft_strlcpy(f->fix, fix ? fix : r->fix ? r->fix : "", sizeof(f->fix));
	ft_strlcpy(f->kb, r->kb ? r->kb : "", sizeof(f->kb));
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	for (i = 0; i < nev && f->nevidence < FT_FINDING_MAX_EVIDENCE; i++) {
		if (!ev[i])
			continue;
		if (!f->entity[0])
			ft_obs_entity(ev[i], f->entity, sizeof(f->entity));
		f->evidence[f->nevidence++] = *ev[i];
	}
	if (!f->entity[0])
		ft_strlcpy(f->entity, "-", sizeof(f->entity));
	rc = ft_findings_add(out, f);
	ft_free(f);
	return rc;
}

int
ft__diag_emit(const struct ft_diag_ctx *c, struct ft_findings *out, int sev,
	      const struct ft_obs *const *ev, size_t nev, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = diag_vemit(c, out, sev, NULL, ev, nev, fmt, ap);
	va_end(ap);
	return rc;
}

int
ft__diag_emit_fix(const struct ft_diag_ctx *c, struct ft_findings *out, int sev,
		  const char *fix, const struct ft_obs *const *ev, size_t nev, const char *fmt,
		  ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = diag_vemit(c, out, sev, fix, ev, nev, fmt, ap);
	va_end(ap);
	return rc;
}

void
ft__evidence_add(struct ft__evidence *e, const struct ft_obs *o)
{
	size_t cap = e->cap && e->cap < FT_ARRAY_SIZE(e->ev) ? e->cap : FT_ARRAY_SIZE(e->ev);

	e->total++;
	if (e->n < cap)
		e->ev[e->n++] = o;
}

/* Call @check on each observation with one key (exact or a pattern). */
static int
each_of_key(const struct ft_diag_ctx *c, struct ft_findings *out, const char *key,
	    ft__diag_check_fn *check)
{
	const struct ft_obs *o;
	size_t i, pos = 0;
	int rc;

	if (strpbrk(key, "*[")) {
		for (i = 0; i < ft__nobs(c); i++) {
			o = ft__obs(c, i);
			if (ft__key_match(o->key, key) && (rc = check(c, out, o)) < 0)
				return rc;
		}
		return 0;
	}
	while ((o = ft__diag_next(c, key, &pos)) != NULL)
		if ((rc = check(c, out, o)) < 0)
			return rc;
	return 0;
}

int
ft__diag_each(const struct ft_diag_ctx *c, struct ft_findings *out, const char *keys,
	      ft__diag_check_fn *check)
{
	char key[sizeof(((struct ft_obs *)0)->key)];
	int rc;

	while (*keys) {
		size_t n = strcspn(keys, " ");

		if (n && n < sizeof(key)) { /* a longer key matches no observation */
			memcpy(key, keys, n);
			key[n] = '\0';
			rc = each_of_key(c, out, key, check);
			if (rc < 0)
				return rc;
		}
		keys += n + strspn(keys + n, " ");
	}
	return 0;
}

int
ft__diag_disagree(const struct ft_diag_ctx *c, struct ft_findings *out,
		  const struct ft__disagree_rule *d)
{
	const struct ft_obs *first = NULL;
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (!d->accept(c, o))
			continue;
		if (!first)
			first = o;
		else if (d->by_num && o->num != first->num)
			return ft__diag_emit(c, out, -1, FT__EV(o, first), d->fmt, o->num,
					     first->num);
		else if (!d->by_num && strcmp(o->str, first->str) != 0)
			return ft__diag_emit(c, out, -1, FT__EV(o, first), d->fmt, o->str,
					     first->str);
	}
	return 0;
}

int
ft__diag_match(const struct ft_diag_ctx *c, struct ft_findings *out,
	       const struct ft__match_rule *m)
{
	const struct ft_obs *o;
	size_t pos = 0;
	int rc;

	if (m->first_only) {
		o = ft__diag_find(c, m->key);
		if (!o || (m->match && !m->match(o)))
			return 0;
		return ft__diag_emit(c, out, -1, FT__EV(o), m->fmt, o->str);
	}
	while ((o = ft__diag_next(c, m->key, &pos)) != NULL) {
		if (m->match && !m->match(o))
			continue;
		rc = ft__diag_emit(c, out, -1, FT__EV(o), m->fmt, o->str);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Does @key equal "<a pattern of @cr>.rate"? */
static bool
is_rate_of(const struct ft__counter_rule *cr, const char *key)
{
	size_t n = strlen(key), k;
	char base[64];

	if (n <= 5 || n - 5 >= sizeof(base) || strcmp(key + n - 5, ".rate") != 0)
		return false;
	memcpy(base, key, n - 5);
	base[n - 5] = '\0';
	for (k = 0; cr->keys[k]; k++)
		if (ft__key_match(base, cr->keys[k]))
			return true;
	return false;
}

int
ft__diag_eval_counter(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft__counter_rule *cr = c->rule->data;
	double threshold = ft__diag_threshold(c->thresholds, cr->threshold_key, cr->threshold);
	double rate_threshold =
		ft__diag_threshold(c->thresholds, cr->rate_threshold_key, cr->rate_threshold);
	size_t i, k;
	int rc;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[1] = { o };
		char name[64];
		double v;
		int sev;

		if (rate_threshold >= 0 && is_rate_of(cr, o->key) && ft__obs_number(o, &v) &&
		    v > rate_threshold) {
			ft_strlcpy(name, o->key, sizeof(name));
			name[strlen(name) - 5] = '\0';
			rc = ft__diag_emit(c, out, cr->rate_critical ? FT_SEV_CRITICAL : -1, ev, 1,
					   "%s rising at %.3g/s during the probe interval: %s",
					   strrchr(name, '.') + 1, v, cr->meaning);
			if (rc < 0)
				return rc;
			continue;
		}
		for (k = 0; cr->keys[k]; k++)
			if (ft__key_match(o->key, cr->keys[k]))
				break;
		if (!cr->keys[k] || !ft__obs_number(o, &v) || v < threshold)
			continue;
		sev = cr->critical > 0 && v >= cr->critical ? FT_SEV_CRITICAL : -1;
		rc = ft__diag_emit(c, out, sev, ev, 1, "%s = %.0f (threshold %.0f, %s): %s",
				   strchr(o->key, '.') ? strrchr(o->key, '.') + 1 : o->key, v,
				   threshold, cr->basis, cr->meaning);
		if (rc < 0)
			return rc;
	}
	return 0;
}
