/* SPDX-License-Identifier: MIT */
/*
 * base/names.c - the one lookup behind every <thing>_from_name(), and the
 * one reader of a name the user gives for an enum (an option, a scenario
 * key), whose error lists the names it takes, so that no caller writes that
 * list by hand.
 */
#include "internal.h"

/* The longest name ft_name_closest() compares; longer ones are never near. */
#define NAME_MAX_LEN 160

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

/* Two characters the same but for case. */
static bool
same_letter(char x, char y)
{
	return tolower((unsigned char)x) == tolower((unsigned char)y);
}

/*
 * Edit distance (insertions, deletions, substitutions, swaps of neighbours)
 * of @a and the first @lb characters of @b: two short words. Case does not
 * count: "DGX-H100" is a preset typed in capitals, not eight edits away.
 */
static size_t
distance(const char *a, const char *b, size_t lb)
{
	size_t la = strlen(a), i, j;
	size_t row[3][NAME_MAX_LEN + 1];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[0][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *cur = row[i % 3], *prev = row[(i - 1) % 3], *prev2 = row[(i + 1) % 3];

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cost = !same_letter(a[i - 1], b[j - 1]), best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) &&
			    same_letter(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return row[la % 3][lb];
}

/*
 * Near means within a third of the key's length (at least 2 edits), from the
 * whole known key or from its start: "utilization" is near "utilisation_min".
 */
const char *
ft_name_closest(const char *key, const char *const *known, size_t n)
{
	size_t i, best = SIZE_MAX, len = strlen(key), limit = len / 3;
	const char *found = NULL;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		size_t lk = strlen(known[i]), dist = distance(key, known[i], lk);

		if (len >= 4 && len < lk) {
			size_t head = distance(key, known[i], len);

			if (head < dist)
				dist = head;
		}

		if (dist < best) {
			best = dist;
			found = known[i];
		}
	}
	return best <= limit ? found : NULL;
}
