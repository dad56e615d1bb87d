/* SPDX-License-Identifier: MIT */
/*
 * base/jsontok.c - the tokens both JSON readers share: a \u escape's four hex
 * digits, a code point as UTF-8, a well-formed UTF-8 sequence, and the
 * extent of a number by RFC 8259's grammar with the one length limit both
 * readers hold. The archive's tree reader (archive/jsonread.c) and the
 * parser's walker (parse/jscan.c) call these and keep their own messages.
 */
#include "internal.h"

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

long
ft__json_hex4(const char *p, const char *end)
{
	long v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

size_t
ft__utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * RFC 8259 section 8.1: JSON text is UTF-8. The well-formed sequences are
 * RFC 3629 section 4's (the Unicode Standard's table 3-7): a lead byte
 * C2-DF, E0-EF or F0-F4 and its continuation bytes 80-BF, the second one
 * narrowed after E0 (A0-BF: no overlong 3-byte form), ED (80-9F: no
 * surrogate), F0 (90-BF: no overlong 4-byte form) and F4 (80-8F: nothing
 * past U+10FFFF). C0, C1 and F5-FF begin none.
 */
size_t
ft__utf8_len(const char *p, const char *end)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p >= end)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if ((size_t)(end - p) < n || u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

const char ft__json_num_too_long[] = "a number too long";

static bool
digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

static const char *
digits(const char *p, const char *end)
{
	while (digit(p, end))
		p++;
	return p;
}

const char *
ft__json_number_end(const char *p, const char *end, const char **why)
{
	const char *b = p;

	*why = NULL;
	if (p < end && *p == '-')
		p++;
	if (!digit(p, end)) {
		*why = "expected a digit";
		return p;
	}
	p = *p == '0' ? p + 1 : digits(p, end);
	if (p < end && *p == '.') {
		if (!digit(++p, end)) {
			*why = "expected a digit after '.'";
			return p;
		}
		p = digits(p, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (!digit(p, end)) {
			*why = "expected a digit in the exponent";
			return p;
		}
		p = digits(p, end);
	}
	if (p - b > FT__JSON_NUM_MAX)
		*why = ft__json_num_too_long;
	return p;
}
