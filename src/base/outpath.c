/* SPDX-License-Identifier: MIT */
/*
 * base/outpath.c - whether an output file can be written, checked before
 * the long work that produces it (a benchmark, a simulation), so that a
 * typo in a path fails at once rather than after the work.
 */
#include "internal.h"

#include <sys/stat.h>

#include <fabtune/base.h>

int
ft_file_check_writable(const char *what, const char *path, struct ft_error *err)
{
	char dir[4096];
	const char *slash;
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!path[0])
		return ft_error_set(err, FT_EINVAL, "%s: empty file name", what);
	if (strlen(path) >= sizeof(dir))
		return ft_error_set(err, FT_EINVAL, "%s %.64s...: path too long", what, path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return ft_error_set(err, FT_EINVAL, "%s %s: is a folder, not a file", what,
			                    path);
		if (access(path, W_OK) != 0)
			return ft_error_set(err, FT_EINVAL, "%s %s: the file is not writable", what,
			                    path);
	}
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) != 0)
		return ft_error_set(err, FT_ENOENT, "%s %s: folder %s does not exist", what, path,
		                    dir);
	if (!S_ISDIR(st.st_mode))
		return ft_error_set(err, FT_EINVAL, "%s %s: %s is not a folder", what, path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return ft_error_set(err, FT_EINVAL, "%s %s: folder %s is not writable", what, path,
		                    dir);
	return 0;
}
