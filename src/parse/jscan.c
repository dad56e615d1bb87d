/* SPDX-License-Identifier: MIT */
/*
 * parse/jscan.c - JSON for the parsers. The cursor (whitespace, strings,
 * the separator after a member or an element, the line and column a
 * position stands on, where the first fault was) that PyTorch traces walk
 * with their own grammar; and on it the one strict walker of RFC 8259
 * documents (ft__jwalk_*) that iperf3 --json and fabtune bench --json are
 * read with: it checks the grammar and decodes strings, the formats say
 * what a path means. Nothing allocates; a fault sends the cursor to the
 * end, so every loop over it stops.
 */
#include "parse_int.h"

void
ft__jcur_init(struct ft__jcur *j, const char *text, size_t len, uint32_t line0)
{
	*j = (struct ft__jcur){ .p = text, .end = text + len, .start = text, .line0 = line0 };
}

uint32_t
ft__jcur_line(struct ft__jcur *j, const char *at)
{
	/* positions are asked for mostly in increasing order: count on from the last */
	if (!j->seen || at < j->seen) {
		j->seen = j->seen_bol = j->start;
		j->seen_line = j->line0 + 1;
	}
	for (const char *q = j->seen; q < at && q < j->end; q++)
		if (*q == '\n') {
			j->seen_line++;
			j->seen_bol = q + 1;
		}
	j->seen = at < j->end ? at : j->end;
	return j->seen_line;
}

void
ft__jcur_ws(struct ft__jcur *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

void
ft__jcur_fail(struct ft__jcur *j)
{
	if (!j->bad) {
		j->bad = true;
		/* input cut short: blame its last line, not the one after it */
		const char *at = j->p >= j->end && j->p > j->start ? j->end - 1 : j->p;

		j->bad_line = ft__jcur_line(j, at);
		j->bad_col = ft__jcur_col(j, at);
	}
	j->p = j->end;
}

bool
ft__jcur_string(struct ft__jcur *j, struct ft__span *out)
{
	const char *b;

	if (j->p >= j->end || *j->p != '"')
		return false;
	b = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->end - j->p > 1)
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return false;
	*out = (struct ft__span){ b, (size_t)(j->p - b) };
	j->p++;
	return true;
}

/* Step over @ch when it is the next byte. */
static bool
eat(struct ft__jcur *j, char ch)
{
	if (j->p < j->end && *j->p == ch) {
		j->p++;
		return true;
	}
	return false;
}

bool
ft__jcur_key(struct ft__jcur *j, struct ft__span *key)
{
	if (!ft__jcur_string(j, key))
		return false;
	ft__jcur_ws(j);
	return eat(j, ':');
}

bool
ft__jcur_open(struct ft__jcur *j, char close)
{
	j->p++;
	ft__jcur_ws(j);
	return !eat(j, close);
}

int
ft__jcur_next(struct ft__jcur *j, char close)
{
	ft__jcur_ws(j);
	if (eat(j, ','))
		return 1;
	if (eat(j, close))
		return 0;
	ft__jcur_fail(j);
	return -1;
}

struct ft__span
ft__jcur_skip_line(struct ft__jcur *j)
{
	const char *nl = memchr(j->p, '\n', (size_t)(j->end - j->p));
	struct ft__span l = { j->p, nl ? (size_t)(nl - j->p) : (size_t)(j->end - j->p) };

	j->p = nl ? nl + 1 : j->end;
	return l;
}

uint32_t
ft__jcur_col(struct ft__jcur *j, const char *at)
{
	(void)ft__jcur_line(j, at);
	return (uint32_t)((at < j->end ? at : j->end) - j->seen_bol) + 1;
}

/* ---- the strict walker ----------------------------------------------------- */

/* At the top of a document: no path, no member that is none. */
static void
jwalk_top(struct ft__jwalk *w)
{
	w->depth = 0;
	w->blind = INT_MAX;
	w->plen[0] = 0;
	w->path[0] = '\0';
}

void
ft__jwalk_init(struct ft__jwalk *w, const char *text, size_t len, uint32_t line0, int maxdepth)
{
	jwalk_top(w);
	w->maxdepth = maxdepth < FT__JMAXDEPTH ? maxdepth : FT__JMAXDEPTH;
	w->bad_path[0] = '\0';
	w->why = NULL;
	w->arg = NULL;
	w->scalar = w->open = w->close = NULL;
	ft__jcur_init(&w->j, text, len, line0);
}

/* The first fault: @why at @at (the end: cut short), under the current path. */
static bool
jfail(struct ft__jwalk *w, const char *at, const char *why)
{
	if (!w->j.bad) {
		w->why = why;
		ft_strlcpy(w->bad_path, w->path, sizeof(w->bad_path));
		w->j.p = at;
	}
	ft__jcur_fail(&w->j);
	return false;
}

/* The 4 hex digits of a \u escape at @p (its backslash); -1 if not one. */
static long
u_escape(const char *p, const char *end)
{
	if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
		return -1;
	return ft__json_hex4(p + 2, end);
}

/* A decoded string: @n bytes at @p, @len used, @cut once something did not fit. */
struct jout {
	char *p;
	size_t n, len;
	bool cut;
};

/* Append @k bytes (one character, never split) to @o, or drop them and mark it cut:
   nothing is appended after a cut (what is kept is the string's beginning). */
static void
put(struct jout *o, const char *b, size_t k)
{
	if (!o->cut && o->len + k < o->n) {
		memcpy(o->p + o->len, b, k);
		o->len += k;
	} else {
		o->cut = true;
	}
}

/* Append @cp as UTF-8 to @o. */
static void
put_utf8(struct jout *o, uint32_t cp)
{
	char b[4];

	put(o, b, ft__utf8_encode(cp, b));
}

/*
 * The string at the cursor (its opening quote) decoded into @o (NUL-ended,
 * cut at a character's end when longer, o->cut then set); the cursor steps
 * past its closing quote. Raw bytes of 0x80 and up must be well-formed
 * UTF-8 (RFC 8259 section 8.1), each sequence kept whole.
 */
static bool
jstring(struct ft__jwalk *w, struct jout *o)
{
	const char *p = w->j.p + 1, *e = w->j.end;

	o->len = 0;
	o->cut = false;
	while (p < e && *p != '"') {
		unsigned char ch;
		const char *q = p;
		size_t k;
		long cp, lo;

		/* a run of printable ASCII, copied at once (one byte each: cut anywhere) */
		while (q < e && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 &&
		       *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			k = o->cut ? 0 : (size_t)(q - p);
			if (o->len + k >= o->n) {
				k = o->n - 1 - o->len;
				o->cut = true;
			}
			memcpy(o->p + o->len, p, k);
			o->len += k;
			p = q;
			continue;
		}
		ch = (unsigned char)*p;
		if (ch < 0x20)
			return jfail(w, p, ch == '\n' ? "a line break in a string" :
			                                "a control byte in a string");
		if (ch != '\\') {
			/* 0x80 and up: one UTF-8 sequence, kept whole */
			k = ft_utf8_seq_len(p, (size_t)(e - p));
			if (!k)
				return jfail(w, p, "a byte that is no UTF-8 in a string");
			put(o, p, k);
			p += k;
			continue;
		}
		if (e - p < 2)
			return jfail(w, e, "cut short in a string");
		switch (p[1]) {
		case '"': case '\\': case '/':
			cp = p[1];
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			cp = u_escape(p, e);
			if (cp < 0)
				return jfail(w, p, "a \\u escape without 4 hex digits");
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return jfail(w, p, "a low surrogate with no high one before it");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				/* a high surrogate: its low half must follow, one code point */
				lo = u_escape(p + 6, e);
				if (lo < 0xdc00 || lo > 0xdfff)
					return jfail(w, p,
					             "a high surrogate with no low one after it");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			/* a NUL would end the decoded C string early: "bytes\u0000x" read as
			   "bytes" (as src/archive/jsonread.c refuses it) */
			if (cp == 0)
				return jfail(w, p, "a \\u0000 in a string");
			put_utf8(o, (uint32_t)cp);
			p += 6;
			continue;
		default:
			return jfail(w, p, "an unknown escape in a string");
		}
		put(o, &(char){ (char)cp }, 1);
		p += 2;
	}
	if (p >= e)
		return jfail(w, e, "cut short in a string");
	o->p[o->len] = '\0';
	w->j.p = p + 1;
	return true;
}

_Static_assert(sizeof(((struct ft__jwalk *)0)->sbuf) > FT__JSON_NUM_MAX,
               "a number's text and its NUL fit the walker's buffer");

/* A number by RFC 8259's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
jnumber(struct ft__jwalk *w, struct ft__jval *v)
{
	const char *b = w->j.p, *e = w->j.end, *why;
	const char *p = ft__json_number_end(b, e, &why);

	if (why)
		return jfail(w, b, why == ft__json_num_too_long ? why : "not a JSON number");
	/* "01", "1.5.2", "0x10", "1e5e": what follows a number must end it */
	if (p < e && (isalnum((unsigned char)*p) || *p == '.' || *p == '+' || *p == '-'))
		return jfail(w, b, "not a JSON number");
	v->raw = (struct ft__span){ b, (size_t)(p - b) };
	if (!ft__dbl(v->raw, &v->num)) {
		/* longer than ft__dbl takes: strtod over a copy (at most FT__JSON_NUM_MAX
		   bytes, which sbuf holds) */
		memcpy(w->sbuf, b, v->raw.n);
		w->sbuf[v->raw.n] = '\0';
		v->num = strtod(w->sbuf, NULL);
	}
	/* 1e400: past a double, read as inf, which no figure is (nor JSON's output) */
	if (!isfinite(v->num))
		return jfail(w, b, "a number out of range");
	w->j.p = p;
	return true;
}

/*
 * The path of a member named @k (decoded, @cut when longer than its buffer)
 * under the current one; false when the name cannot stand in a path: one
 * with a '.' ("pairs.median_GBps" would read as "median_GBps" in "pairs"; a
 * NUL, refused by jstring, would too) or one too long for it, the name cut
 * included (its first bytes could equal a name the format knows; the path
 * is then left cut at its full length, or at the cut name's end where that
 * is shorter: plen[] is always strlen(path)).
 */
static bool
path_push(struct ft__jwalk *w, const char *k, size_t kn, bool cut)
{
	size_t l = w->plen[w->depth], room = sizeof(w->path) - 1 - l;
	size_t dot = l ? 1 : 0, n = dot + kn;
	bool fits = !cut && n <= room;

	/* as snprintf would, without its cost on every member: cut at the path's end;
	   a cut name may be shorter than the room left (cut before a 3- or 4-byte
	   character): never more than its own bytes, or the path would take its NUL */
	if (n > room)
		n = room;
	if (dot && room)
		w->path[l] = '.';
	if (n > dot)
		memcpy(w->path + l + dot, k, n - dot);
	w->path[l + n] = '\0';
	w->plen[w->depth + 1] = l + n;
	return fits && !memchr(k, '.', kn);
}

static bool
jcontainer(struct ft__jwalk *w, struct ft__jval *v)
{
	struct ft__jcur *j = &w->j;
	bool obj = v->kind == FT__JOBJ;
	char close = obj ? '}' : ']';
	/* a name longer than the path stands in none: no longer buffer needed */
	char key[sizeof(w->path)];
	struct jout ko = { key, sizeof(key), 0, false };

	if (w->open && w->depth < w->blind)
		w->open(w, v);
	j->p++;
	ft__jcur_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		goto closed;
	}
	for (;;) {
		ft__jcur_ws(j);
		if (obj) {
			if (j->p >= j->end)
				return jfail(w, j->end, "cut short in an object");
			if (*j->p != '"')
				return jfail(w, j->p, "a member name expected");
			if (!jstring(w, &ko))
				return false;
			ft__jcur_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return jfail(w, j->p, "':' expected after a member name");
			j->p++;
			/* a member whose name is no path: walked, nothing in it handed over */
			if (!path_push(w, key, ko.len, ko.cut) && w->blind > w->depth + 1)
				w->blind = w->depth + 1;
		} else {
			w->plen[w->depth + 1] = w->plen[w->depth];
		}
		w->depth++;
		w->path[w->plen[w->depth]] = '\0';
		if (!ft__jwalk_value(w))
			return false;
		if (w->blind == w->depth)
			w->blind = INT_MAX;
		w->depth--;
		w->path[w->plen[w->depth]] = '\0';
		ft__jcur_ws(j);
		if (j->p >= j->end)
			return jfail(w, j->end,
			             obj ? "cut short in an object" : "cut short in an array");
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			break;
		}
		return jfail(w, j->p, obj ? "',' or '}' expected" : "',' or ']' expected");
	}
closed:
	if (w->close && w->depth < w->blind)
		w->close(w, v);
	return !j->bad;
}

bool
ft__jwalk_value(struct ft__jwalk *w)
{
	struct ft__jcur *j = &w->j;
	struct ft__jval v = { .kind = FT__JNULL, .num = NAN };
	struct jout so = { w->sbuf, sizeof(w->sbuf), 0, false };

	ft__jcur_ws(j);
	if (j->bad)
		return false;
	if (j->p >= j->end)
		return jfail(w, j->end, "cut short, a value expected");
	if (w->depth >= w->maxdepth)
		return jfail(w, j->p, "nested too deep");
	v.raw = (struct ft__span){ j->p, 1 };
	v.line = ft__jcur_line(j, j->p);
	switch (*j->p) {
	case '{':
		v.kind = FT__JOBJ;
		return jcontainer(w, &v);
	case '[':
		v.kind = FT__JARR;
		return jcontainer(w, &v);
	case '"':
		if (!jstring(w, &so))
			return false;
		v.kind = FT__JSTR;
		v.raw.n = (size_t)(j->p - v.raw.p);
		v.str = (struct ft__span){ w->sbuf, so.len };
		break;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		v.kind = FT__JNUM;
		if (!jnumber(w, &v))
			return false;
		break;
	default: {
		const char *b = j->p;

		while (j->p < j->end && isalnum((unsigned char)*j->p))
			j->p++;
		v.raw.n = (size_t)(j->p - b);
		if (ft__eq(v.raw, "true"))
			v.kind = FT__JTRUE;
		else if (ft__eq(v.raw, "false"))
			v.kind = FT__JFALSE;
		else if (ft__eq(v.raw, "null"))
			v.kind = FT__JNULL;
		else
			return jfail(w, b, v.raw.n ? "a bare word, not a JSON value" :
			                             "a value expected");
	}
	}
	if (w->scalar && w->depth < w->blind)
		w->scalar(w, &v);
	return !j->bad;
}

/* The fault as `parse.skipped`: "invalid JSON at line L, column C: WHY (at PATH)". */
static void
jwalk_skipped(struct ft__pctx *c, const struct ft__jwalk *w)
{
	char why[64], text[320];

	snprintf(why, sizeof(why), "invalid JSON at line %u, column %u", w->j.bad_line,
	         w->j.bad_col);
	if (w->bad_path[0])
		snprintf(text, sizeof(text), "%s (at %s)", w->why ? w->why : "malformed",
		         w->bad_path);
	else
		snprintf(text, sizeof(text), "%s", w->why ? w->why : "malformed");
	ft__skipped(c, w->j.bad_line, why, ft__span_c(text));
}

int
ft__jwalk_doc(struct ft__pctx *c, struct ft__jwalk *w, const char *not_json)
{
	for (;;) {
		uint32_t line;

		ft__jcur_ws(&w->j);
		if (w->j.p >= w->j.end || c->rc)
			return 0;
		if (*w->j.p == '{')
			break;
		/* text around the documents (a prompt, a warning): the line left unread */
		line = ft__jcur_line(&w->j, w->j.p);
		ft__unread(c, line, not_json, ft__jcur_skip_line(&w->j));
	}
	jwalk_top(w);
	if (!ft__jwalk_value(w)) {
		jwalk_skipped(c, w);
		return 0;
	}
	return 1;
}

const char *
ft__jkind_name(enum ft__jkind k)
{
	static const char *const names[] = { "a string", "a number", "true",    "false",
		                             "null",     "an object", "an array" };

	return (unsigned)k < FT_ARRAY_SIZE(names) ? names[k] : "?";
}
