/* SPDX-License-Identifier: MIT */
/*
 * archive/jsonread.c - a strict RFC 8259 JSON reader for archive exports.
 *
 * A recursive-descent parser building a tree in an arena, remembering the
 * line and column of every value so that import errors can name
 * file:line:column and the field. Depth is bounded (no stack exhaustion on
 * hostile input); strings are decoded to UTF-8, surrogate pairs included,
 * and their raw bytes must be UTF-8, as the parser's walker holds them.
 */
#include "archive_int.h"

#define MAX_DEPTH 64

struct reader {
	const char *p, *end;
	const char *file;
	unsigned line;
	const char *line_start;
	struct ft_arena *arena;
	struct ft_error *err;
};

static unsigned
col(const struct reader *r)
{
	return (unsigned)(r->p - r->line_start) + 1;
}

static int
fail(struct reader *r, const char *what)
{
	if (r->p >= r->end)
		return ft_error_set(r->err, FT_EPARSE, "%s:%u:%u: %s (at end of input)", r->file,
		                    r->line, col(r), what);
	return ft_error_set(r->err, FT_EPARSE, "%s:%u:%u: %s", r->file, r->line, col(r), what);
}

static void
skip_ws(struct reader *r)
{
	while (r->p < r->end) {
		char c = *r->p;

		if (c == '\n') {
			r->line++;
			r->line_start = r->p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
		r->p++;
	}
}

static struct ft_jv *
new_value(struct reader *r, enum ft_jv_type t)
{
	struct ft_jv *v = FT_ARENA_NEW(r->arena, struct ft_jv);

	if (v) {
		v->type = t;
		v->line = r->line;
		v->col = col(r);
	}
	return v;
}

static int
hex4(struct reader *r, unsigned *out)
{
	long v;

	if (r->end - r->p < 4)
		return fail(r, "truncated \\u escape");
	v = ft__json_hex4(r->p, r->end);
	if (v < 0)
		return fail(r, "bad hex digit in \\u escape");
	r->p += 4;
	*out = (unsigned)v;
	return 0;
}

static void
put_utf8(struct ft_strbuf *sb, unsigned cp)
{
	char b[4];

	ft_strbuf_add(sb, b, ft__utf8_encode(cp, b));
}

/* The character each one-letter escape stands for (RFC 8259, section 7). */
static const char unescaped[0x80] = {
	['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b',
	['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
};

static int
escape(struct reader *r, struct ft_strbuf *sb)
{
	unsigned cp, lo;
	char c;

	if (r->p >= r->end)
		return fail(r, "unterminated string");
	c = *r->p++;
	if ((unsigned char)c < 0x80 && unescaped[(unsigned char)c]) {
		ft_strbuf_addch(sb, unescaped[(unsigned char)c]);
		return 0;
	}
	switch (c) {
	case 'u':
		if (hex4(r, &cp) < 0)
			return FT_EPARSE;
		if (cp >= 0xd800 && cp < 0xdc00) {
			if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
				return fail(r, "lone high surrogate in \\u escape");
			r->p += 2;
			if (hex4(r, &lo) < 0)
				return FT_EPARSE;
			if (lo < 0xdc00 || lo > 0xdfff)
				return fail(r, "bad low surrogate in \\u escape");
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp < 0xe000) {
			return fail(r, "lone low surrogate in \\u escape");
		}
		if (cp == 0)
			return fail(r, "\\u0000 is not allowed in strings");
		put_utf8(sb, cp);
		return 0;
	default:
		r->p--;
		return fail(r, "unknown escape in string");
	}
}

/*
 * The end of the bytes from @p that a string takes as they are: all but '"',
 * '\\' and those below 0x20; raw bytes of 0x80 and up only as well-formed
 * UTF-8 (RFC 8259 section 8.1), checked by ft_utf8_seq_len() as the parser's
 * walker does, so a stop there is a byte that is none.
 */
static const char *
text_run(const char *p, const char *end)
{
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		size_t k;

		if (c < 0x80) {
			if (c < 0x20 || c == '"' || c == '\\')
				break;
			p++;
			continue;
		}
		k = ft_utf8_seq_len(p, (size_t)(end - p));
		if (!k)
			break;
		p += k;
	}
	return p;
}

static int
parse_string(struct reader *r, const char **out)
{
	struct ft_strbuf sb;
	int rc = 0;

	r->p++; /* the opening quote */
	/* Fast path: no escape before the closing quote, copy straight into the arena. */
	{
		const char *q = r->p;
		char *copy;

		q = text_run(q, r->end);
		if (q < r->end && *q == '"') {
			copy = ft_arena_alloc(r->arena, (size_t)(q - r->p) + 1, 1);
			if (!copy)
				return ft_error_set(r->err, FT_ENOMEM, "%s: out of memory",
				                    r->file);
			memcpy(copy, r->p, (size_t)(q - r->p));
			copy[q - r->p] = '\0';
			*out = copy;
			r->p = q + 1;
			return 0;
		}
	}
	ft_strbuf_init(&sb);
	for (;;) {
		const char *start = r->p;

		r->p = text_run(r->p, r->end);
		ft_strbuf_add(&sb, start, (size_t)(r->p - start));
		if (r->p >= r->end) {
			rc = fail(r, "unterminated string");
			break;
		}
		if (*r->p == '"') {
			r->p++;
			break;
		}
		if (*r->p == '\\') {
			r->p++;
			rc = escape(r, &sb);
			if (rc < 0)
				break;
			continue;
		}
		rc = fail(r, (unsigned char)*r->p >= 0x80 ? "a byte that is no UTF-8 in a string" :
		                                            "control character in string");
		break;
	}
	if (rc == 0 && sb.oom)
		rc = ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
	if (rc == 0) {
		*out = ft_arena_strdup(r->arena, sb.buf);
		if (!*out)
			rc = ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
	}
	ft_strbuf_release(&sb);
	return rc;
}

static int
parse_number(struct reader *r, struct ft_jv *v)
{
	const char *why, *s = r->p;
	const char *e = ft__json_number_end(s, r->end, &why);
	char *text;

	/* past FT__JSON_NUM_MAX bytes: named at its first byte, as the parser's walker
	   does; a digit missing where it is missing */
	r->p = why == ft__json_num_too_long ? s : e;
	if (why)
		return fail(r, why);
	text = ft_arena_alloc(r->arena, (size_t)(e - s) + 1, 1);
	if (!text)
		return ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
	memcpy(text, s, (size_t)(e - s));
	text[e - s] = '\0';
	v->numtext = text;
	v->num = strtod(text, NULL);
	return 0;
}

static int parse_value(struct reader *r, int depth, struct ft_jv **out);

/* Grow a pointer array kept in a vector, then copy it into the arena. */
static int
finish_list(struct reader *r, struct ft_vec *tmp, void ***out)
{
	if (tmp->len == 0) {
		*out = NULL;
		return 0;
	}
	*out = ft_arena_alloc(r->arena, tmp->len * sizeof(void *), _Alignof(void *));
	if (!*out)
		return ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
	memcpy(*out, tmp->data, tmp->len * sizeof(void *));
	return 0;
}

/* Step over the opening bracket; false when @close follows at once (empty, consumed). */
static bool
list_open(struct reader *r, char close)
{
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return false;
	}
	return true;
}

/* After an element: 1 on ',' and 0 on @close (both consumed); else the error @what. */
static int
list_next(struct reader *r, char close, const char *what)
{
	skip_ws(r);
	if (r->p < r->end && *r->p == ',') {
		r->p++;
		return 1;
	}
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	return fail(r, what);
}

/* An object member's name and the ':' after it, into @key. */
static int
parse_member_name(struct reader *r, const char **key)
{
	int rc;

	skip_ws(r);
	if (r->p >= r->end || *r->p != '"')
		return fail(r, "expected a member name in double quotes");
	rc = parse_string(r, key);
	if (rc < 0)
		return rc;
	skip_ws(r);
	if (r->p >= r->end || *r->p != ':')
		return fail(r, "expected ':' after the member name");
	r->p++;
	return 0;
}

/* An array (@close ']': values) or an object (@close '}': named values) into @v. */
static int
parse_list(struct reader *r, int depth, struct ft_jv *v, char close)
{
	bool object = close == '}';
	const char *what =
	        object ? "expected ',' or '}' in object" : "expected ',' or ']' in array";
	struct ft_vec keys, vals;
	int rc = 0;

	ft_vec_init(&keys, sizeof(const char *));
	ft_vec_init(&vals, sizeof(struct ft_jv *));
	if (!list_open(r, close))
		goto done;
	for (;;) {
		const char *key = NULL;
		struct ft_jv *e;

		if (object) {
			rc = parse_member_name(r, &key);
			if (rc < 0)
				break;
		}
		rc = parse_value(r, depth + 1, &e);
		if (rc < 0)
			break;
		if ((object && ft_vec_push(&keys, &key) < 0) || ft_vec_push(&vals, &e) < 0) {
			rc = ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
			break;
		}
		rc = list_next(r, close, what);
		if (rc <= 0)
			break;
	}
done:
	if (rc == 0) {
		v->n = vals.len;
		if (object)
			rc = finish_list(r, &keys, (void ***)&v->keys);
		if (rc == 0)
			rc = finish_list(r, &vals, (void ***)&v->items);
	}
	ft_vec_release(&keys);
	ft_vec_release(&vals);
	return rc;
}

static bool
literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return false;
	r->p += n;
	return true;
}

static int
parse_value(struct reader *r, int depth, struct ft_jv **out)
{
	struct ft_jv *v;
	char c;

	skip_ws(r);
	if (depth > MAX_DEPTH)
		return fail(r, "nesting too deep");
	if (r->p >= r->end)
		return fail(r, "expected a value");
	c = *r->p;
	v = new_value(r, FT_JV_NULL);
	if (!v)
		return ft_error_set(r->err, FT_ENOMEM, "%s: out of memory", r->file);
	*out = v;
	switch (c) {
	case '{':
		v->type = FT_JV_OBJECT;
		return parse_list(r, depth, v, '}');
	case '[':
		v->type = FT_JV_ARRAY;
		return parse_list(r, depth, v, ']');
	case '"':
		v->type = FT_JV_STRING;
		return parse_string(r, &v->str);
	case 't':
	case 'f':
		v->type = FT_JV_BOOL;
		v->b = c == 't';
		if (literal(r, c == 't' ? "true" : "false"))
			return 0;
		break;
	case 'n':
		if (literal(r, "null"))
			return 0;
		break;
	default:
		if (c == '-' || isdigit((unsigned char)c)) {
			v->type = FT_JV_NUMBER;
			return parse_number(r, v);
		}
		break;
	}
	return fail(r, "expected a JSON value");
}

int
ft__json_parse(const char *text, size_t len, const char *file, struct ft_arena *arena,
               struct ft_jv **out, struct ft_error *err)
{
	struct reader r = { text, text + len, file, 1, text, arena, err };
	int rc;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		r.p += 3;
		r.line_start = r.p;
	}
	rc = parse_value(&r, 0, out);
	if (rc < 0)
		return rc;
	skip_ws(&r);
	if (r.p < r.end)
		return fail(&r, "unexpected text after the JSON value");
	return 0;
}

const struct ft_jv *
ft__json_get(const struct ft_jv *o, const char *key)
{
	size_t i;

	if (!o || o->type != FT_JV_OBJECT)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

const char *
ft__json_type_name(enum ft_jv_type t)
{
	static const char *const names[] = { "null",     "a boolean", "a number",
		                             "a string", "an array",  "an object" };

	return (unsigned)t < FT_ARRAY_SIZE(names) ? names[t] : "?";
}
