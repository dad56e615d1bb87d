/* SPDX-License-Identifier: MIT */
/*
 * base/jsontok.c - the tokens both JSON readers share: a \u escape's four hex
 * digits, a code point as UTF-8, and the extent of a number by RFC 8259's
 * grammar with the one length limit both readers hold. The archive's tree
 * reader (archive/jsonread.c) and the parser's walker (parse/jscan.c) call
 * these and keep their own messages; both check raw bytes of 0x80 and up
 * with the public ft_utf8_seq_len() (base/strbuf.c).
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
