/* SPDX-License-Identifier: MIT */
/*
 * archive/compare_opts.c - the options of a comparison as a user writes
 * them ("5%", "0.05", a sigma, a sample count), checked and read into
 * struct ft_compare_opts.
 */
#include "archive_int.h"

int
ft_compare_parse_fraction(const char *what, const char *text, double *out, struct ft_error *err)
{
	size_t n = strlen(text);
	bool pct = n > 0 && text[n - 1] == '%';
	char buf[64];
	double v;

	if (n == 0 || n >= sizeof(buf))
		goto bad;
	memcpy(buf, text, n + 1);
	if (pct)
		buf[n - 1] = '\0';
	/* a percentage up to 1000% (a band wider than the value), a fraction up to 1 */
	if (ft_parse_double(buf, &v) < 0 || !(v >= 0) || v > (pct ? 1000 : 1))
		goto bad;
	*out = pct ? v / 100.0 : v;
	return 0;
bad:
	return ft_error_set(err, FT_EINVAL,
	                    "%s: expected a percentage like 5%% or a fraction like 0.05, got '%s'",
	                    what, text);
}

int
ft_compare_opts_parse(struct ft_compare_opts *o, const char *threshold, const char *floor,
                      double sigma, int min_samples, const char *min_matched,
                      struct ft_error *err)
{
	ft_compare_opts_init(o);
	if (threshold && ft_compare_parse_fraction("--threshold", threshold, &o->rel_threshold, err) < 0)
		return FT_EINVAL;
	if (floor && ft_compare_parse_fraction("--floor", floor, &o->floor_rel, err) < 0)
		return FT_EINVAL;
	if (sigma < 0 || !isfinite(sigma))
		return ft_error_set(err, FT_EINVAL, "--sigma: expected a number >= 0, got %g", sigma);
	if (sigma > 0)
		o->k_sigma = sigma;
	if (min_samples != -1 && min_samples < 2)
		return ft_error_set(err, FT_EINVAL, "--min-samples: expected a count >= 2, got %d",
		                    min_samples);
	if (min_samples > 0)
		o->min_samples = (unsigned)min_samples;
	if (min_matched && ft_compare_parse_fraction("--min-matched", min_matched, &o->min_matched, err) < 0)
		return FT_EINVAL;
	if (o->min_matched > 1)
		return ft_error_set(err, FT_EINVAL, "--min-matched: at most 100%%, got '%s'",
		                    min_matched);
	return 0;
}
