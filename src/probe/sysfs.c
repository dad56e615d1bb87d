/* SPDX-License-Identifier: MIT */
/*
 * probe/sysfs.c - small helpers to read a sysfs tree (the live one or a
 * captured copy under --root): joined paths, one-line files, sorted listings.
 *
 * Under --root every file and folder is opened as if the root were "/"
 * (ft_file_open_under): a symlink in the captured tree, absolute or full of
 * "..", never reads a file of the machine itself. Only regular files are
 * read, and opening never blocks: a FIFO planted in the tree reads as absent.
 */
#include "probe_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

bool
ft__probe_path(const struct ft__probe *p, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, size, "%s", p->root), m;

	if (n < 0 || (size_t)n >= size)
		return false;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	return m >= 0 && (size_t)m < size - (size_t)n;
}

bool
ft__probe_read(const char *root, const char *path, char *buf, size_t size)
{
	int fd = ft_file_open_under(root, path, false, NULL);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return false;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return true;
}

/* Natural order: digit runs compare as numbers. */
static int
natcmp(const void *pa, const void *pb)
{
	const char *a = *(char *const *)pa, *b = *(char *const *)pb;

	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);

			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

size_t
ft__probe_list(const char *root, const char *dir, char ***out)
{
	int fd = ft_file_open_under(root, dir, true, NULL);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nn = ft_reallocarray(names, ncap, sizeof(*names));

			if (!nn)
				break;
			names = nn;
			cap = ncap;
		}
		names[n] = ft_strdup(e->d_name);
		if (!names[n])
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), natcmp);
	*out = names;
	return n;
}

void
ft__probe_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ft_free(names[i]);
	ft_free(names);
}

bool
ft__probe_link_base(const char *path, char *buf, size_t size)
{
	char target[FT__PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n <= 0)
		return false;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	slash = strrchr(target, '/');
	ft_strlcpy(buf, slash ? slash + 1 : target, size);
	return buf[0] != '\0';
}
