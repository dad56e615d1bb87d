/* SPDX-License-Identifier: MIT */
/*
 * base/names.c - the lookup behind every <thing>_from_name(): a name's
 * index in its enum's name table.
 */
#include "internal.h"

int
ft__name_index(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}
