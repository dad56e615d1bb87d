/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_jwalk.c - libFuzzer harness for the strict JSON walker
 * the JSON formats share (src/parse/jscan.c), on its own: the input walked
 * by ft__jwalk_doc, document after document as iperf3-json and
 * fabtune-bench walk it, the text around them left unread.
 *
 * Besides crashes, overreads and undefined behaviour, a finding is a broken
 * promise of the walker: opens and closes not paired, a depth past the
 * bound, a path or a decoded string not terminated or longer than its
 * buffer, a scalar whose text is not of its kind (a number with other
 * bytes, a literal other than true, false, null), a decoded string that is
 * not UTF-8 or holds a surrogate (raw bytes of 0x80 and up are checked, and
 * a string is cut between characters only), a number that
 * reads as NaN or infinite, a fault with no line, column or reason or not
 * reported as parse.skipped, or a walk that neither moves nor faults.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/parse_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long g_open;

/* @s (@n bytes) is UTF-8 with no surrogate and nothing past U+10FFFF. */
static bool
utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char b = s[i];
		size_t k;
		uint32_t cp;

		if (b < 0x80) {
			i++;
			continue;
		}
		if ((b & 0xe0) == 0xc0) {
			k = 1;
			cp = b & 0x1f;
		} else if ((b & 0xf0) == 0xe0) {
			k = 2;
			cp = b & 0x0f;
		} else if ((b & 0xf8) == 0xf0) {
			k = 3;
			cp = b & 0x07;
		} else {
			return false;
		}
		for (size_t m = 1; m <= k; m++) {
			if (i + m >= n || (s[i + m] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + m] & 0x3f);
		}
		if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
		    (k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000))
			return false;
		i += k + 1;
	}
	return true;
}

static void
check_common(struct ft__jwalk *w)
{
	if (w->depth < 0 || w->depth > w->maxdepth || !memchr(w->path, '\0', sizeof(w->path)))
		abort();
}

static void
on_open(struct ft__jwalk *w, const struct ft__jval *v)
{
	check_common(w);
	if ((v->kind != FT__JOBJ && v->kind != FT__JARR) || v->raw.n != 1 ||
	    *v->raw.p != (v->kind == FT__JOBJ ? '{' : '[') || v->line < 1)
		abort();
	g_open++;
}

static void
on_close(struct ft__jwalk *w, const struct ft__jval *v)
{
	check_common(w);
	if (v->kind != FT__JOBJ && v->kind != FT__JARR)
		abort();
	if (--g_open < 0)
		abort();
}

static void
on_scalar(struct ft__jwalk *w, const struct ft__jval *v)
{
	check_common(w);
	if (v->line < 1 || v->raw.n == 0)
		abort();
	switch (v->kind) {
	case FT__JSTR:
		if (v->raw.n < 2 || v->raw.p[0] != '"' || v->raw.p[v->raw.n - 1] != '"' ||
		    v->str.n >= sizeof(w->sbuf) || v->str.p[v->str.n] != '\0')
			abort();
		if (!utf8_ok((const unsigned char *)v->str.p, v->str.n))
			abort();
		break;
	case FT__JNUM:
		for (size_t i = 0; i < v->raw.n; i++)
			if (!strchr("-+.eE0123456789", v->raw.p[i]))
				abort();
		if (!isfinite(v->num))
			abort();
		break;
	case FT__JTRUE:
		if (!ft__eq(v->raw, "true"))
			abort();
		break;
	case FT__JFALSE:
		if (!ft__eq(v->raw, "false"))
			abort();
		break;
	case FT__JNULL:
		if (!ft__eq(v->raw, "null"))
			abort();
		break;
	default:
		abort();
	}
}

/* The last observation of @set is a parse.skipped naming line and column. */
static bool
last_skipped(const struct ft_obs_set *set)
{
	size_t n = ft_obs_set_len(set);
	const struct ft_obs *o = n ? ft_obs_set_at(set, n - 1) : NULL;

	return o && strcmp(o->key, "parse.skipped") == 0 && strstr(o->str, "invalid JSON at line ");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that reading one byte past the input is caught */
	char *text = malloc(size ? size : 1);
	struct ft__jwalk *w = malloc(sizeof(*w));
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	struct ft__pctx c;

	if (!text || !w) {
		free(text);
		free(w);
		return 0;
	}
	memcpy(text, data, size);
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	ft__pctx_init(&c, "fuzz", &set, &run, &err);
	ft__jwalk_init(w, text, size, 0, FT__JMAXDEPTH);
	w->scalar = on_scalar;
	w->open = on_open;
	w->close = on_close;
	/* the documents one after the other, as iperf3-json and fabtune-bench read them */
	for (;;) {
		const char *before = w->j.p;
		int r;

		g_open = 0;
		r = ft__jwalk_doc(&c, w, "not JSON");
		if (c.rc) {
			if (c.rc != FT_ENOMEM)
				abort();
			break;
		}
		if (r > 0) {
			if (g_open != 0 || w->depth != 0 || w->j.p <= before || w->j.bad)
				abort();
			continue;
		}
		/* the end, or a fault: then named where, the cursor at the end */
		if (w->j.p != w->j.end)
			abort();
		if (w->j.bad && (!w->why || w->j.bad_line < 1 || w->j.bad_col < 1 ||
		                 !memchr(w->bad_path, '\0', sizeof(w->bad_path)) ||
		                 !last_skipped(&set)))
			abort();
		break;
	}
	ft_run_release(&run);
	ft_obs_set_release(&set);
	free(w);
	free(text);
	return 0;
}
