/* SPDX-License-Identifier: MIT */
/*
 * base/json.c - streaming JSON writer (fabtune/json.h).
 *
 * Strings are always valid UTF-8 JSON: control characters are escaped, and
 * every byte that does not belong to a well-formed UTF-8 sequence (input
 * files in Latin-1, binary garbage) is replaced by U+FFFD, so that any JSON
 * parser accepts the output (RFC 8259 section 8.1).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/json.h>

void
ft_json_init(struct ft_json *j, struct ft_strbuf *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
	j->first[0] = true;
}

static void
newline(struct ft_json *j)
{
	if (!j->pretty)
		return;
	ft_strbuf_addch(j->out, '\n');
	ft_strbuf_addchars(j->out, ' ', (size_t)j->depth * 2);
}

/* Called before every value or key: commas and indentation. */
static void
before_value(struct ft_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		ft_strbuf_addch(j->out, ',');
	j->first[j->depth] = false;
	if (j->depth > 0)
		newline(j);
}

static void
open_scope(struct ft_json *j, char c)
{
	before_value(j);
	ft_strbuf_addch(j->out, c);
	if (j->depth + 1 < FT_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void
close_scope(struct ft_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		newline(j);
	ft_strbuf_addch(j->out, c);
}

void
ft_json_obj_begin(struct ft_json *j)
{
	open_scope(j, '{');
}

void
ft_json_obj_end(struct ft_json *j)
{
	close_scope(j, '}');
}

void
ft_json_arr_begin(struct ft_json *j)
{
	open_scope(j, '[');
}

void
ft_json_arr_end(struct ft_json *j)
{
	close_scope(j, ']');
}

/* The characters below 0x80 that JSON escapes by a letter (RFC 8259, section 7). */
static const char *const short_escapes[0x80] = {
	['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

void
ft_json_escape(struct ft_strbuf *sb, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t len;

		if (c >= 0x80) {
			/* JSON text is UTF-8: a byte that is not becomes U+FFFD */
			len = ft_utf8_seq_len(s + i, n - i);
			if (len) {
				ft_strbuf_add(sb, s + i, len);
				i += len - 1;
			} else {
				ft_strbuf_adds(sb, "\xef\xbf\xbd");
			}
			continue;
		}
		if (short_escapes[c])
			ft_strbuf_adds(sb, short_escapes[c]);
		else if (c < 0x20 || c == 0x7f)
			ft_strbuf_addf(sb, "\\u%04x", c);
		else
			ft_strbuf_addch(sb, (char)c);
	}
}

void
ft_json_key(struct ft_json *j, const char *key)
{
	before_value(j);
	ft_strbuf_addch(j->out, '"');
	ft_json_escape(j->out, key, strlen(key));
	ft_strbuf_adds(j->out, j->pretty ? "\": " : "\":");
	j->after_key = true;
}

void
ft_json_strn(struct ft_json *j, const char *s, size_t n)
{
	before_value(j);
	ft_strbuf_addch(j->out, '"');
	ft_json_escape(j->out, s, n);
	ft_strbuf_addch(j->out, '"');
}

void
ft_json_str(struct ft_json *j, const char *s)
{
	if (!s) {
		ft_json_null(j);
		return;
	}
	ft_json_strn(j, s, strlen(s));
}

void
ft_json_int(struct ft_json *j, int64_t v)
{
	before_value(j);
	ft_strbuf_addf(j->out, "%lld", (long long)v);
}

void
ft_json_uint(struct ft_json *j, uint64_t v)
{
	before_value(j);
	ft_strbuf_addf(j->out, "%llu", (unsigned long long)v);
}

void
ft_json_double(struct ft_json *j, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		ft_json_null(j);
		return;
	}
	for (prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	before_value(j);
	ft_strbuf_adds(j->out, buf);
}

void
ft_json_double_prec(struct ft_json *j, double v, int digits)
{
	if (!isfinite(v)) {
		ft_json_null(j);
		return;
	}
	before_value(j);
	ft_strbuf_addf(j->out, "%.*g", digits, v);
}

void
ft_json_bool(struct ft_json *j, bool v)
{
	before_value(j);
	ft_strbuf_adds(j->out, v ? "true" : "false");
}

void
ft_json_null(struct ft_json *j)
{
	before_value(j);
	ft_strbuf_adds(j->out, "null");
}

void
ft_json_raw(struct ft_json *j, const char *text)
{
	before_value(j);
	ft_strbuf_adds(j->out, text);
}

/* ft_json_kv_<kind>(): a member's key, then its value */
#define DEF_KV_(kind, T)                                             \
	void ft_json_kv_##kind(struct ft_json *j, const char *key, T v) \
	{                                                             \
		ft_json_key(j, key);                                  \
		ft_json_##kind(j, v);                                 \
	}
DEF_KV_(str, const char *)
DEF_KV_(int, int64_t)
DEF_KV_(uint, uint64_t)
DEF_KV_(double, double)
DEF_KV_(bool, bool)
#undef DEF_KV_

