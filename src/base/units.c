/* SPDX-License-Identifier: MIT */
/*
 * base/units.c - parse and print sizes, rates and durations.
 *
 * Conventions (fabtune/units.h): bare K/M/G/T and KiB/MiB/GiB/TiB are binary;
 * KB/MB/GB/TB are decimal. Rates with a lower-case b are bits per second
 * (Gbps, Gb/s), with an upper-case B bytes per second (GB/s, GBps); rates are
 * returned in bytes/s. Parsing never depends on the locale.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/units.h>

/* Split "12.5Gbps" into a number and a unit suffix. */
static int
split_number(const char *s, double *num, const char **unit)
{
	char buf[64];
	size_t i = 0;

	while (s[i] && (isdigit((unsigned char)s[i]) || s[i] == '.' ||
			((s[i] == 'e' || s[i] == 'E') && i > 0 && (isdigit((unsigned char)s[i + 1]) ||
								  s[i + 1] == '-' || s[i + 1] == '+')) ||
			((s[i] == '-' || s[i] == '+') && i > 0 && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
		i++;
	if (i == 0 || i >= sizeof(buf))
		return FT_EPARSE;
	memcpy(buf, s, i);
	buf[i] = '\0';
	if (ft_parse_double(buf, num) < 0)
		return FT_EPARSE;
	while (s[i] == ' ')
		i++;
	*unit = s + i;
	return 0;
}

struct unit_scale {
	const char *name;
	double scale;
};

/* "<number><unit>" with a unit of @units: the number times the unit's scale. */
static int
parse_scaled(const char *s, const struct unit_scale *units, size_t nunits, double *out)
{
	const char *unit;
	double num;
	size_t i;

	if (!s || split_number(s, &num, &unit) < 0 || num < 0)
		return FT_EPARSE;
	for (i = 0; i < nunits; i++) {
		if (strcmp(unit, units[i].name) == 0) {
			*out = num * units[i].scale;
			return 0;
		}
	}
	return FT_EPARSE;
}

static const struct unit_scale size_units[] = {
	{ "", 1 },
	{ "B", 1 },
	{ "K", 1024.0 },
	{ "KiB", 1024.0 },
	{ "KB", 1e3 },
	{ "k", 1024.0 },
	{ "M", 1048576.0 },
	{ "MiB", 1048576.0 },
	{ "MB", 1e6 },
	{ "G", 1073741824.0 },
	{ "GiB", 1073741824.0 },
	{ "GB", 1e9 },
	{ "T", 1099511627776.0 },
	{ "TiB", 1099511627776.0 },
	{ "TB", 1e12 },
};

/* parse_scaled(), or FT_EPARSE saying what was @expected and what came. */
static int
parse_or_say(const char *s, const struct unit_scale *units, size_t n, double *out,
             const char *expected, struct ft_error *err)
{
	if (parse_scaled(s, units, n, out) < 0)
		return ft_error_set(err, FT_EPARSE, "expected %s, got '%s'", expected, s ? s : "");
	return 0;
}

int
ft_parse_size(const char *s, uint64_t *bytes, struct ft_error *err)
{
	double v = 0;
	int rc = parse_or_say(s, size_units, FT_ARRAY_SIZE(size_units), &v,
	                      "a size like 4KiB, 256M or 8G", err);

	if (rc < 0)
		return rc;
	if (v >= 18446744073709551615.0)
		return ft_error_set(err, FT_ERANGE, "size '%s' is too large", s);
	if (v != floor(v))
		return ft_error_set(err, FT_EPARSE, "size '%s' is not a whole number of bytes", s);
	*bytes = (uint64_t)v;
	return 0;
}

static const struct unit_scale rate_units[] = {
	/* bits per second */
	{ "bps", 1.0 / 8 },
	{ "b/s", 1.0 / 8 },
	{ "Kbps", 1e3 / 8 },
	{ "Kb/s", 1e3 / 8 },
	{ "Mbps", 1e6 / 8 },
	{ "Mb/s", 1e6 / 8 },
	{ "Gbps", 1e9 / 8 },
	{ "Gb/s", 1e9 / 8 },
	{ "Gbit", 1e9 / 8 },
	{ "Tbps", 1e12 / 8 },
	{ "Tb/s", 1e12 / 8 },
	/* bytes per second */
	{ "B/s", 1 },
	{ "Bps", 1 },
	{ "KB/s", 1e3 },
	{ "KBps", 1e3 },
	{ "MB/s", 1e6 },
	{ "MBps", 1e6 },
	{ "GB/s", 1e9 },
	{ "GBps", 1e9 },
	{ "TB/s", 1e12 },
	{ "TBps", 1e12 },
	{ "KiB/s", 1024.0 },
	{ "MiB/s", 1048576.0 },
	{ "GiB/s", 1073741824.0 },
};

int
ft_parse_rate(const char *s, double *Bps, struct ft_error *err)
{
	return parse_or_say(s, rate_units, FT_ARRAY_SIZE(rate_units), Bps,
	                    "a rate like 400Gbps or 50GB/s", err);
}

static const struct unit_scale duration_units[] = {
	{ "ps", 1e-12 }, { "ns", 1e-9 }, { "us", 1e-6 }, { "µs", 1e-6 },
	{ "ms", 1e-3 },	 { "s", 1 },	 { "min", 60 },	 { "h", 3600 },
};

int
ft_parse_duration(const char *s, double *seconds, struct ft_error *err)
{
	return parse_or_say(s, duration_units, FT_ARRAY_SIZE(duration_units), seconds,
	                    "a duration like 2us, 1.5ms or 30s", err);
}

char *
ft_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t i = 0;
	uint64_t v = bytes;

	while (i + 1 < FT_ARRAY_SIZE(names) && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, names[i]);
	return buf;
}

char *
ft_format_nbytes(uint64_t bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%llu byte%s", (unsigned long long)bytes, bytes == 1 ? "" : "s");
	return buf;
}

/* Print @v with up to 4 significant digits and no trailing zeros. */
static void
format_scaled(double v, const char *const *names, size_t nnames, double step, char *buf,
	      size_t len)
{
	size_t i = 0;
	char num[32];
	char *p;

	while (i + 1 < nnames && fabs(v) >= step) {
		v /= step;
		i++;
	}
	snprintf(num, sizeof(num), "%.4g", v);
	if (strchr(num, 'e') == NULL && strchr(num, '.')) {
		p = num + strlen(num) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	snprintf(buf, len, "%s%s", num, names[i]);
}

char *
ft_format_rate_bits(double Bps, char *buf, size_t len)
{
	static const char *const names[] = { "bps", "Kbps", "Mbps", "Gbps", "Tbps" };

	format_scaled(Bps * 8.0, names, FT_ARRAY_SIZE(names), 1000.0, buf, len);
	return buf;
}

char *
ft_format_rate_bytes(double Bps, char *buf, size_t len)
{
	static const char *const names[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };

	format_scaled(Bps, names, FT_ARRAY_SIZE(names), 1000.0, buf, len);
	return buf;
}

char *
ft_format_duration(double seconds, char *buf, size_t len)
{
	static const struct unit_scale steps[] = {
		{ "ps", 1e-12 }, { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	};
	size_t i = 0;
	char num[32];
	char *p;

	while (i + 1 < FT_ARRAY_SIZE(steps) && fabs(seconds) >= steps[i + 1].scale)
		i++;
	snprintf(num, sizeof(num), "%.4g", seconds / steps[i].scale);
	if (strchr(num, 'e') == NULL && strchr(num, '.')) {
		p = num + strlen(num) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	snprintf(buf, len, "%s%s", num, steps[i].name);
	return buf;
}
