/* SPDX-License-Identifier: MIT */
/*
 * parse/common.c - span helpers, the parse context and the observation
 * emitters every parser uses.
 */
#include "parse_int.h"

/* Each '|'-separated alternative of *@alts in turn; false after the last. */
static bool
next_alt(const char **alts, struct ft__span *alt)
{
	const char *bar;

	if (!*alts)
		return false;
	bar = strchr(*alts, '|');
	alt->p = *alts;
	alt->n = bar ? (size_t)(bar - *alts) : strlen(*alts);
	*alts = bar ? bar + 1 : NULL;
	return true;
}

const char *
ft__find_any(struct ft__span s, const char *alts)
{
	struct ft__span a;
	const char *hit;

	while (next_alt(&alts, &a))
		if ((hit = ft__find_n(s, a.p, a.n)))
			return hit;
	return NULL;
}

bool
ft__starts_any(struct ft__span s, const char *alts)
{
	struct ft__span a;

	while (next_alt(&alts, &a))
		if (s.n >= a.n && memcmp(s.p, a.p, a.n) == 0)
			return true;
	return false;
}

bool
ft__split(struct ft__span s, char sep, struct ft__span *key, struct ft__span *val)
{
	const char *q = s.n ? memchr(s.p, sep, s.n) : NULL;

	if (!q)
		return false;
	key->p = s.p;
	key->n = (size_t)(q - s.p);
	val->p = q + 1;
	val->n = s.n - key->n - 1;
	*key = ft__trim(*key);
	*val = ft__trim(*val);
	return true;
}

void
ft__copy(char *dst, size_t size, struct ft__span s)
{
	size_t n;

	if (!size)
		return;
	n = s.n < size - 1 ? s.n : size - 1;
	if (n)
		memcpy(dst, s.p, n);
	dst[n] = '\0';
}

bool
ft__u64(struct ft__span s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	s = ft__trim(s);
	if (!s.n)
		return false;
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		if (s.n > 18)
			return false;
		for (i = 2; i < s.n; i++) {
			char ch = s.p[i];
			unsigned d;

			if (ft__is_digit(ch))
				d = (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				d = (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				d = (unsigned)(ch - 'A' + 10);
			else
				return false;
			v = v * 16 + d;
		}
		*out = v;
		return true;
	}
	for (i = 0; i < s.n; i++) {
		unsigned d;

		if (!ft__is_digit(s.p[i]))
			return false;
		d = (unsigned)(s.p[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool
ft__i64(struct ft__span s, int64_t *out)
{
	uint64_t v;
	bool neg = false;

	s = ft__trim(s);
	if (s.n && (s.p[0] == '-' || s.p[0] == '+')) {
		neg = s.p[0] == '-';
		s = ft__skip(s, 1);
	}
	if (!ft__u64(s, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static const double pow10_tab[] = { 1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                            1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

/*
 * A decimal number with optional sign, fraction and exponent. "123" and
 * "123.45" with at most 15 significant digits are read exactly without
 * strtod (mantissa and power of ten are both exact doubles, so the one
 * division rounds correctly: the same result as strtod); anything else goes
 * through strtod on a bounded copy. Tables are mostly such numbers, and this
 * keeps the nccl-tests parser above 200 MB/s.
 */
bool
ft__dbl(struct ft__span s, double *out)
{
	char buf[64];
	char *end;
	size_t i = 0, ndig = 0, nfrac = 0;
	uint64_t mant = 0;
	bool neg = false, dot = false;

	s = ft__trim(s);
	if (!s.n || s.n >= sizeof(buf))
		return false;
	if (s.p[0] == '-' || s.p[0] == '+') {
		neg = s.p[0] == '-';
		i = 1;
	}
	for (; i < s.n; i++) {
		char ch = s.p[i];

		if (ft__is_digit(ch)) {
			mant = mant * 10 + (uint64_t)(ch - '0');
			ndig++;
			nfrac += dot;
		} else if (ch == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (i == s.n && ndig && ndig <= 15) {
		double v = (double)mant / pow10_tab[nfrac];

		*out = neg ? -v : v;
		return true;
	}
	for (i = 0; i < s.n; i++) {
		char ch = s.p[i];

		if (!(ft__is_digit(ch) || ch == '.' || ch == '-' || ch == '+' || ch == 'e' ||
		      ch == 'E'))
			return false;
	}
	memcpy(buf, s.p, s.n);
	buf[s.n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return end == buf + s.n && errno == 0 && isfinite(*out);
}

bool
ft__lead_dbl(struct ft__span s, double *out, struct ft__span *rest)
{
	size_t i = 0;

	s = ft__trim(s);
	if (i < s.n && (s.p[i] == '-' || s.p[i] == '+'))
		i++;
	while (i < s.n && (ft__is_digit(s.p[i]) || s.p[i] == '.'))
		i++;
	if (i == 0 || !ft__dbl((struct ft__span){ s.p, i }, out))
		return false;
	if (rest)
		*rest = ft__trim(ft__skip(s, i));
	return true;
}

/* ---- context and emitters ------------------------------------------------ */

void
ft__pctx_init(struct ft__pctx *c, const char *file, struct ft_obs_set *out, struct ft_run *run,
              struct ft_error *err)
{
	memset(c, 0, sizeof(*c));
	c->file = file ? file : "";
	c->out = out;
	c->run = run;
	c->err = err;
	c->port = -1;
	c->rank = -1;
}

void
ft__pctx_run_kind(struct ft__pctx *c, const char *kind)
{
	if (c->run && !c->run->kind[0])
		ft_strlcpy(c->run->kind, kind, sizeof(c->run->kind));
	if (c->run && !c->run->label[0])
		ft_strlcpy(c->run->label, c->file, sizeof(c->run->label));
}

void
ft__pctx_entity(struct ft__pctx *c, const char *device, int port)
{
	ft_strlcpy(c->device, device ? device : "", sizeof(c->device));
	c->port = port;
}

void
ft__emit(struct ft__pctx *c, uint32_t line, const char *key, bool has_num, double num,
         const char *unit, struct ft__span str)
{
	struct ft_obs *o;

	if (c->rc || !c->out)
		return;
	/* built in place at the end of the set: no copy of the record */
	if (c->file_set != c->out) { /* first emit, or @out changed (the probe's second snapshot) */
		c->file_in = ft_strpool_intern(&c->out->files, c->file);
		c->file_set = c->file_in ? c->out : NULL;
	}
	if (!c->file_in || ft_vec_reserve(&c->out->v, 1) < 0) {
		c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
		return;
	}
	o = (struct ft_obs *)ft_vec_at(&c->out->v, c->out->v.len);
	ft_obs_init(o, key);
	memcpy(o->host, c->host, sizeof(o->host));
	memcpy(o->device, c->device, sizeof(o->device));
	o->port = c->port;
	o->rank = c->rank;
	o->file = c->file_in;
	o->line = line;
	o->has_num = has_num;
	o->num = has_num ? num : 0;
	if (unit)
		ft_strlcpy(o->unit, unit, sizeof(o->unit));
	if (str.p)
		ft__copy(o->str, sizeof(o->str), str);
	c->out->v.len++;
}

void
ft__emit_num(struct ft__pctx *c, uint32_t line, const char *key, double num, const char *unit)
{
	ft__emit(c, line, key, true, num, unit, FT__NOSTR);
}

void
ft__emit_str(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span str)
{
	ft__emit(c, line, key, false, 0, NULL, str);
}

void
ft__emit_cstr(struct ft__pctx *c, uint32_t line, const char *key, const char *str)
{
	ft__emit(c, line, key, false, 0, NULL, ft__span_c(str));
}

void
ft__emit_named(struct ft__pctx *c, uint32_t line, const char *prefix, struct ft__span name,
               bool has_num, double num, const char *unit, struct ft__span str)
{
	char key[64];
	size_t k = strlen(prefix);

	if (k >= sizeof(key))
		return;
	memcpy(key, prefix, k);
	ft__copy(key + k, sizeof(key) - k, name);
	ft__emit(c, line, key, has_num, num, unit, str);
}

void
ft__emit_clock(struct ft__pctx *c, uint32_t line, int rank, struct ft__span s)
{
	const char *semi = memchr(s.p, ';', s.n);
	struct ft__span src, rest, t = s;
	double mhz = NAN, ppm = NAN;

	if (semi)
		t.n = (size_t)(semi - s.p);
	t = ft__trim(t);
	rest = t;
	if (!ft__token(&rest, &src) || !(ft__eq(src, "tsc") || ft__eq(src, "monotonic"))) {
		ft__skipped(c, line, "sample clock not tsc or monotonic", s);
		return;
	}
	rest = ft__trim(rest);
	/* the rate and its error: the counter's, printed outside stable output */
	if (rest.n && ft__eq(src, "tsc") && ft__lead_dbl(rest, &mhz, &rest) && mhz > 0) {
		rest = ft__trim(rest);
		if (!ft__starts(rest, "MHz")) {
			mhz = NAN;
		} else {
			rest = ft__trim(ft__skip(rest, 3));
			if (ft__starts(rest, ", error ")) {
				if (!ft__lead_dbl(ft__skip(rest, 8), &ppm, &rest) ||
				    !ft__eq(ft__trim(rest), "ppm"))
					mhz = NAN;
				else
					rest = FT__NOSTR;
			}
		}
	}
	if (rest.n || (mhz != mhz && ppm == ppm)) {
		ft__skipped(c, line, "sample clock not \"tsc R MHz, error E ppm\"", s);
		return;
	}
	ft__emit_clock_at(c, line, rank, src, mhz * 1e6, ppm);
}

void
ft__emit_clock_at(struct ft__pctx *c, uint32_t line, int rank, struct ft__span src, double hz,
                  double ppm)
{
	int rank0 = c->rank;

	if (!(ft__eq(src, "tsc") || ft__eq(src, "monotonic"))) {
		ft__skipped(c, line, "sample clock not tsc or monotonic", src);
		return;
	}
	c->rank = rank;
	ft__emit(c, line, "bench.clock_hz", hz == hz, hz, "Hz", src);
	if (ppm == ppm)
		ft__emit_num(c, line, "bench.clock_error", ppm, "ppm");
	c->rank = rank0;
}

void
ft__emit_clock_line(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	struct ft__span rest = ft__trim(s), tok;
	uint64_t r;

	if (!ft__token(&rest, &tok) || !ft__eq(tok, "rank") || !ft__token(&rest, &tok) ||
	    !ft__u64(tok, &r) || r > INT32_MAX) {
		ft__skipped(c, line, "clock line without \"rank R\"", s);
		return;
	}
	ft__emit_clock(c, line, (int)r, rest);
}

void
ft__skipped(struct ft__pctx *c, uint32_t line, const char *why, struct ft__span text)
{
	char buf[160];
	int k = snprintf(buf, sizeof(buf), "%s: ", why);
	struct ft__span t = ft__trim(text);

	if (k < 0 || (size_t)k >= sizeof(buf))
		k = 0;
	ft__copy(buf + k, sizeof(buf) - (size_t)k, t);
	/* keep the text printable: control bytes from binary input become '?' */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = '?';
	ft__emit_cstr(c, line, "parse.skipped", buf);
}

bool
ft__tool_error(struct ft__pctx *c, uint32_t line, struct ft__span s, const char *starts)
{
	if (!ft__starts_any(s, starts))
		return false;
	ft__emit_str(c, line, "tool.error", s);
	return true;
}

/*
 * infiniband-diags and libibumad print their warnings and, at a debug level,
 * their trace as "ibwarn: [pid] function: message". Only a
 * message that reports a failure is the tool's error; "umad_init: umad_init"
 * or "umad_get_ca: opened mlx4_0" says the tool is working.
 */
bool
ft__ibwarn(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	static const char *const failed[] = { "fail",	   "can't", "cannot", "error",	  "timed out",
					      "timeout",   "no such", "not found", "unable", "invalid",
					      "denied",	   "refused" };
	char low[256];
	size_t n = s.n < sizeof(low) - 1 ? s.n : sizeof(low) - 1;

	if (!ft__starts(s, "ibwarn:"))
		return false;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s.p[i]);
	low[n] = '\0';
	for (size_t i = 0; i < FT_ARRAY_SIZE(failed); i++)
		if (strstr(low, failed[i])) {
			ft__emit_str(c, line, "tool.error", s);
			break;
		}
	return true;
}

void
ft__unread(struct ft__pctx *c, uint32_t line, const char *why, struct ft__span text)
{
	struct ft__span cmd;

	if (!ft__is_prompt(text, &cmd))
		ft__skipped(c, line, why, text);
}

int
ft__parse_lines(struct ft__pctx *c, const char *text, size_t len, ft__line_fn *fn, void *state,
                const char *why)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;

	while (ft__next_line(c, &it, &s))
		if (!fn(c, state, s, it.lineno) && why)
			ft__unread(c, it.lineno, why, s);
	return c->rc;
}

void
ft__add_row(struct ft__pctx *c, const struct ft_result_row *row)
{
	if (c->rc || !c->run)
		return;
	if (ft_run_add(c->run, row) < 0)
		c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
}

/* ---- prompts and corpus headers ------------------------------------------ */

bool
ft__is_prompt(struct ft__span s, struct ft__span *cmd)
{
	const char *q;

	s = ft__trim(s);
	if (ft__starts(s, "$ ") || ft__starts(s, "+ ") || ft__starts(s, "# ")) {
		*cmd = ft__trim(ft__skip(s, 2));
		return cmd->n > 0;
	}
	/* "[root@host dir]# cmd", "user@host:~$ cmd" */
	if (s.n && (s.p[0] == '[' || memchr(s.p, '@', s.n))) {
		for (q = s.p; q + 1 < s.p + s.n; q++) {
			if ((q[0] == '#' || q[0] == '$') && q[1] == ' ' && q > s.p &&
			    (q[-1] == ']' || q[-1] == '~' || q[-1] == ' ' || q[-1] == '/')) {
				*cmd = ft__trim(ft__skip(s, (size_t)(q - s.p) + 2));
				return cmd->n > 0;
			}
		}
	}
	return false;
}

/* "root@sonic-10432:/home/admin# ...", "root@n0:~# ..." -> host "sonic-10432", "n0". */
void
ft__host_from_prompt(struct ft__pctx *c, struct ft__span s)
{
	const char *at = memchr(s.p, '@', s.n);
	size_t n = 0;

	if (!at || at - s.p > 32)
		return;
	at++;
	while (at + n < s.p + s.n && at[n] != ':' && at[n] != ' ' && at[n] != '#' && at[n] != '$' &&
	       at[n] != ']')
		n++;
	if (n)
		ft__copy(c->host, sizeof(c->host), (struct ft__span){ at, n });
}

size_t
ft__corpus_header(const char *text, size_t len, uint32_t *nlines)
{
	struct ft__lines it;
	struct ft__span line;

	*nlines = 0;
	if (len < 2 || text[0] != '#')
		return 0;
	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line) && it.lineno <= 64) {
		struct ft__span t = ft__trim(line);

		if (!ft__starts(t, "#"))
			return 0;
		if (ft__eq(t, "# ---")) {
			*nlines = it.lineno;
			return (size_t)(it.p - text);
		}
	}
	return 0;
}

int
ft__parse_with(ft__run_fn *fn, const char *text, size_t len, const char *file,
               struct ft_obs_set *out, struct ft_run *run, struct ft_error *err)
{
	struct ft__pctx c;
	uint32_t nl;
	size_t skip;

	ft__pctx_init(&c, file, out, run, err);
	if (!text)
		len = 0;
	skip = text ? ft__corpus_header(text, len, &nl) : 0;
	if (skip) {
		c.hdr.p = text;
		c.hdr.n = skip;
		c.line0 = nl;
	}
	return fn(&c, text ? text + skip : "", len - skip);
}

void
ft__field_value(struct ft__pctx *c, uint32_t line, const char *key, enum ft__field_kind kind,
                const char *unit, struct ft__span val)
{
	double v;
	uint64_t u;

	switch (kind) {
	case FT__F_IGN:
		break;
	case FT__F_STR:
		ft__emit_str(c, line, key, val);
		break;
	case FT__F_NUM:
		if (ft__u64(val, &u))
			ft__emit_num(c, line, key, (double)u, unit);
		else if (ft__dbl(val, &v))
			ft__emit_num(c, line, key, v, unit);
		else
			ft__emit_str(c, line, key, val);
		break;
	case FT__F_LEAD:
		if (ft__lead_dbl(val, &v, NULL))
			ft__emit(c, line, key, true, v, unit, val);
		else
			ft__emit_str(c, line, key, val);
		break;
	}
}

bool
ft__field_emit(struct ft__pctx *c, uint32_t line, const struct ft__field *map, size_t n,
               struct ft__span name, struct ft__span val)
{
	for (size_t i = 0; i < n; i++) {
		if (ft__eq(name, map[i].name)) {
			ft__field_value(c, line, map[i].key, map[i].kind, map[i].unit, val);
			return true;
		}
	}
	return false;
}

