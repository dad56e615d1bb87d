/* SPDX-License-Identifier: MIT */
/*
 * spec/load.c - the YAML/JSON spec loader (in progress: the next commit
 * brings the parser; until then files are refused with FT_ENOTSUP).
 */
#include "internal.h"

#include <fabtune/spec.h>

int
ft_spec_load_buffer(const char *text, size_t len, const char *file, struct ft_cluster_spec *out,
		    struct ft_error *err)
{
	if (out)
		memset(out, 0, sizeof(*out));
	return ft_error_set(err, FT_ENOTSUP, "%s: spec files are not supported yet",
			    file ? file : "<buffer>");
}

int
ft_spec_load_file(const char *path, struct ft_cluster_spec *out, struct ft_error *err)
{
	return ft_spec_load_buffer(NULL, 0, path, out, err);
}
