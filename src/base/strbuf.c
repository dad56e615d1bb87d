/* SPDX-License-Identifier: MIT */
/*
 * base/strbuf.c - growing, always NUL-terminated string buffers and strict
 * number parsing. Reading a file into a buffer is in base/file.c.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty_buf[1];

void
ft_strbuf_init(struct ft_strbuf *sb)
{
	sb->buf = empty_buf;
	sb->len = 0;
	sb->cap = 0;
	sb->oom = false;
}

void
ft_strbuf_release(struct ft_strbuf *sb)
{
	if (sb->cap)
		ft_free(sb->buf);
	ft_strbuf_init(sb);
}

void
ft_strbuf_reset(struct ft_strbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}

static bool
grow(struct ft_strbuf *sb, size_t extra)
{
	size_t cap;
	char *p;

	if (sb->oom || extra > SIZE_MAX - sb->len - 1) {
		sb->oom = true;
		return false;
	}
	if (sb->len + extra + 1 <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap = cap > SIZE_MAX / 2 ? sb->len + extra + 1 : cap * 2;
	p = ft_reallocarray(sb->cap ? sb->buf : NULL, cap, 1);
	if (!p) {
		sb->oom = true;
		return false;
	}
	if (!sb->cap)
		p[0] = '\0';
	sb->buf = p;
	sb->cap = cap;
	return true;
}

void
ft_strbuf_add(struct ft_strbuf *sb, const void *data, size_t len)
{
	if (!len || !grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void
ft_strbuf_adds(struct ft_strbuf *sb, const char *s)
{
	ft_strbuf_add(sb, s, strlen(s));
}

void
ft_strbuf_addch(struct ft_strbuf *sb, char c)
{
	ft_strbuf_add(sb, &c, 1);
}

void
ft_strbuf_addchars(struct ft_strbuf *sb, char c, size_t n)
{
	if (!n || !grow(sb, n))
		return;
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
ft_strbuf_vaddf(struct ft_strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0 || !grow(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void
ft_strbuf_addf(struct ft_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ft_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *
ft_strbuf_detach(struct ft_strbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	if (!sb->cap) {
		p = ft_malloc(1);
		if (p)
			p[0] = '\0';
	} else {
		p = sb->buf;
	}
	ft_strbuf_init(sb);
	return p;
}

size_t
ft_printable_piece(const char *s, size_t n, char esc[FT_PRINTABLE_ESC])
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	esc[0] = '\0';
	if (!n)
		return 0;
	/* CR only before LF (CSV lines end in CRLF): alone it overwrites a line */
	if ((p[0] >= 0x20 && p[0] < 0x7f) || p[0] == '\n' || p[0] == '\t' ||
	    (p[0] == '\r' && n > 1 && p[1] == '\n'))
		return 1;
	/* a C1 control, U+0080 to U+009F */
	if (p[0] == 0xc2 && n > 1 && p[1] >= 0x80 && p[1] < 0xa0) {
		snprintf(esc, FT_PRINTABLE_ESC, "\\u%04x", p[1]);
		return 2;
	}
	if (p[0] >= 0x80 && (len = ft_utf8_seq_len(s, n)) > 0)
		return len; /* printable UTF-8 */
	snprintf(esc, FT_PRINTABLE_ESC, "\\x%02x", p[0]);
	return 1;
}

void
ft_strbuf_add_printable(struct ft_strbuf *sb, const char *s, size_t n)
{
	char esc[FT_PRINTABLE_ESC];
	size_t i = 0, run = 0, len;

	while (i + run < n) {
		len = ft_printable_piece(s + i + run, n - i - run, esc);
		if (!esc[0]) {
			run += len;
			continue;
		}
		ft_strbuf_add(sb, s + i, run);
		ft_strbuf_add(sb, esc, strlen(esc));
		i += run + len;
		run = 0;
	}
	ft_strbuf_add(sb, s + i, run);
}

size_t
ft_utf8_seq_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (!n)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The whole of @s as a decimal integer into *@out, an int64_t when
 * @is_signed, else a uint64_t: FT_EPARSE for an empty text, a leading
 * blank, a sign on an unsigned one or anything after the digits;
 * FT_ERANGE when it does not fit. *@out is left alone on failure.
 */
static int
parse_integer(const char *s, bool is_signed, void *out)
{
	unsigned long long u = 0;
	long long i = 0;
	char *end;

	if (!s || !*s || *s == ' ' || (!is_signed && (*s == '-' || *s == '+')))
		return FT_EPARSE;
	errno = 0;
	if (is_signed)
		i = strtoll(s, &end, 10);
	else
		u = strtoull(s, &end, 10);
	if (errno || *end)
		return errno == ERANGE ? FT_ERANGE : FT_EPARSE;
	if (is_signed)
		*(int64_t *)out = i;
	else
		*(uint64_t *)out = u;
	return 0;
}

int
ft_parse_u64(const char *s, uint64_t *out)
{
	return parse_integer(s, false, out);
}

int
ft_parse_i64(const char *s, int64_t *out)
{
	return parse_integer(s, true, out);
}

int
ft_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ')
		return FT_EPARSE;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || *end || !isfinite(v))
		return *end ? FT_EPARSE : FT_ERANGE;
	*out = v;
	return 0;
}
