/* SPDX-License-Identifier: MIT */
/*
 * base/names.c - the one lookup behind every <thing>_from_name(), and the
 * one reader of a name the user gives for an enum (an option, a scenario
 * key), whose error lists the names it takes, so that no caller writes that
 * list by hand.
 */
#include "internal.h"

/* Lower case without '_', '-' and spaces. */
static void
squash(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		if (*s == '_' || *s == '-' || *s == ' ')
			continue;
		out[n++] = (char)tolower((unsigned char)*s);
	}
	out[n] = '\0';
}

int
ft__name_lookup(const struct ft__name_set *set, const char *s, int *out)
{
	char want[32], have[32];
	size_t i;

	if (!s || strlen(s) >= sizeof(want))
		return FT_EINVAL;
	squash(s, want, sizeof(want));
	for (i = 0; i < set->count; i++) {
		squash(set->names[i], have, sizeof(have));
		if (strcmp(want, have) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	for (i = 0; set->aliases && set->aliases[i].name; i++) {
		if (strcmp(want, set->aliases[i].name) == 0) {
			*out = set->aliases[i].value;
			return 0;
		}
	}
	return FT_EINVAL;
}

void
ft__names_expected(const char *const *names, size_t n, bool with_auto, char *buf, size_t len)
{
	size_t i, used = (size_t)snprintf(buf, len, "expected %s", with_auto ? "auto" : "");

	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		                         i == 0 && !with_auto ? "" :
		                         i + 1 == n           ? " or " :
		                                                ", ",
		                         names[i]);
}

int
ft__name_read(const struct ft__name_set *set, const char *label, const char *s, int auto_value,
              int *out, struct ft_error *err)
{
	size_t naccept = set->naccept ? set->naccept : set->count;
	char what[256];
	int v;

	if (auto_value >= 0 && s && strcmp(s, "auto") == 0) {
		*out = auto_value;
		return 0;
	}
	if (ft__name_lookup(set, s, &v) == 0 && (size_t)v < naccept) {
		*out = v;
		return 0;
	}
	ft__names_expected(set->names, naccept, auto_value >= 0, what, sizeof(what));
	return ft_error_set(err, FT_EINVAL, "%s%s%s, got '%s'", label ? label : "",
	                    label ? ": " : "", what, s ? s : "");
}
