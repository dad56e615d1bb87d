/* SPDX-License-Identifier: MIT */
/*
 * fabtune/units.h - sizes, rates and durations: parsing and printing.
 *
 * Sizes are bytes (uint64_t): "4KiB", "256M", "8G" (K/M/G/T alone are binary,
 * as nccl-tests' -b/-e; "KB", "MB", "GB" are decimal). Rates are bytes/s
 * (double): "400Gbps", "400Gb/s" (bits), "50GB/s", "50GBps" (bytes). Durations
 * are seconds (double): "2us", "1.5ms", "3s", "100ns", "5ps". The packet
 * engine's integer picoseconds convert here and nowhere else.
 */
#ifndef FABTUNE_UNITS_H
#define FABTUNE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each returns 0 or FT_EPARSE/FT_ERANGE, naming the text in @err. */
FT_API int ft_parse_size(const char *s, uint64_t *bytes, struct ft_error *err) FT_MUST_CHECK;
FT_API int ft_parse_rate(const char *s, double *Bps, struct ft_error *err) FT_MUST_CHECK;
FT_API int ft_parse_duration(const char *s, double *seconds, struct ft_error *err) FT_MUST_CHECK;

/*
 * Format into @buf of @len bytes; return @buf. Sizes print exactly when they
 * are whole binary units ("4KiB", "8GiB") and otherwise in bytes ("1000B").
 * Rates print in bits ("400Gbps") or bytes ("50GB/s") with up to 4
 * significant digits; durations pick ns/us/ms/s.
 */
FT_API char *ft_format_size(uint64_t bytes, char *buf, size_t len);
FT_API char *ft_format_rate_bits(double Bps, char *buf, size_t len);
FT_API char *ft_format_rate_bytes(double Bps, char *buf, size_t len);
FT_API char *ft_format_duration(double seconds, char *buf, size_t len);
/* A count of bytes in words, exact: "1 byte", "0 bytes", "67108864 bytes". */
FT_API char *ft_format_nbytes(uint64_t bytes, char *buf, size_t len);

/* Picoseconds inside the packet engine, seconds at the API. */
static inline double
ft_ps_to_s(uint64_t ps)
{
	return (double)ps * 1e-12;
}
static inline uint64_t
ft_s_to_ps(double s)
{
	return s <= 0 ? 0 : (uint64_t)(s * 1e12 + 0.5);
}

#define FT_GBPS_TO_BPS(gbps) ((gbps)*1e9 / 8.0) /* line rate Gb/s -> bytes/s */

#ifdef __cplusplus
}
#endif
#endif
