/* SPDX-License-Identifier: MIT */
/*
 * base/walk.c - the inputs a command is given, folders expanded into the
 * files under them.
 *
 * A folder is walked depth first, the names of each level sorted by their
 * bytes (not the locale), so that the same folder gives the same list, and
 * the same output, on every machine. Names starting with '.' are left out
 * (editor backups, .git), as are FIFOs, sockets and devices, which no tool
 * writes its output to. Symbolic links are followed, except one that leads
 * back to a folder already on the way down (a loop would never end). The
 * files found are counted against ft_input_max_files(), so that a mistyped
 * "/" stops with an error rather than reading a whole disk.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fabtune/base.h>
#include <fabtune/json.h>

#define INPUT_FILES_DEFAULT 10000
#define WALK_DEPTH_MAX 64

struct walk {
	struct ft_vec *out;
	const char *top; /* the folder given */
	size_t max, nfound;
	size_t depth;
	dev_t dev[WALK_DEPTH_MAX]; /* the folders on the way down */
	ino_t ino[WALK_DEPTH_MAX];
	struct ft_error *err;
};

size_t
ft_input_max_files(void)
{
	const char *s = getenv("FABTUNE_MAX_FILES");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return INPUT_FILES_DEFAULT;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > SIZE_MAX)
		return INPUT_FILES_DEFAULT;
	return (size_t)v;
}

static int
add(struct ft_vec *out, const char *path, const char *dir, struct ft_error *err)
{
	struct ft_input_path p = { .path = ft_strdup(path), .dir = dir };

	if (p.path && ft_vec_push(out, &p) == 0)
		return 0;
	ft_free(p.path);
	return ft_error_set(err, FT_ENOMEM, "%s: out of memory", path);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_release(struct ft_vec *names)
{
	for (size_t i = 0; i < names->len; i++)
		ft_free(*(char **)ft_vec_at(names, i));
	ft_vec_release(names);
}

/* The names in folder @path but hidden ones, sorted, into @names (char *). */
static int
list_names(const char *path, struct ft_vec *names, struct ft_error *err)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return ft_error_set(err, FT_EIO, "%s: cannot read the folder: %s", path,
		                    strerror(errno));
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *name;

		if (e->d_name[0] == '.')
			continue;
		name = ft_strdup(e->d_name);
		if (!name || ft_vec_push(names, &name) < 0) {
			ft_free(name);
			rc = ft_error_set(err, FT_ENOMEM, "%s: out of memory", path);
		}
	}
	closedir(d);
	if (rc == 0 && names->len)
		qsort(names->data, names->len, sizeof(char *), cmp_names);
	return rc;
}

static bool
on_the_way_down(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->depth; i++)
		if (w->dev[i] == st->st_dev && w->ino[i] == st->st_ino)
			return true;
	return false;
}

static int walk_dir(struct walk *w, const char *path, const struct stat *st);

static int
walk_entry(struct walk *w, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return 0; /* a dangling link, or gone since it was listed */
	if (S_ISDIR(st.st_mode))
		return walk_dir(w, path, &st);
	if (!S_ISREG(st.st_mode))
		return 0;
	if (w->nfound == w->max)
		return ft_error_set(w->err, FT_ERANGE,
		                    "%s: more than %zu files in the folder (FABTUNE_MAX_FILES "
		                    "raises the limit)",
		                    w->top, w->max);
	w->nfound++;
	return add(w->out, path, w->top, w->err);
}

static int
walk_dir(struct walk *w, const char *path, const struct stat *st)
{
	struct ft_vec names;
	struct ft_strbuf sub;
	size_t len = strlen(path);
	int rc;

	if (on_the_way_down(w, st))
		return 0; /* a link back up: a loop */
	if (w->depth == WALK_DEPTH_MAX)
		return ft_error_set(w->err, FT_ERANGE, "%s: folders nested more than %d deep",
		                    path, WALK_DEPTH_MAX);
	w->dev[w->depth] = st->st_dev;
	w->ino[w->depth] = st->st_ino;
	w->depth++;
	ft_vec_init(&names, sizeof(char *));
	ft_strbuf_init(&sub);
	rc = list_names(path, &names, w->err);
	for (size_t i = 0; rc == 0 && i < names.len; i++) {
		ft_strbuf_reset(&sub);
		ft_strbuf_adds(&sub, path);
		if (len && path[len - 1] != '/')
			ft_strbuf_addch(&sub, '/');
		ft_strbuf_adds(&sub, *(char **)ft_vec_at(&names, i));
		rc = sub.oom ? ft_error_set(w->err, FT_ENOMEM, "%s: out of memory", path)
		             : walk_entry(w, sub.buf);
	}
	ft_strbuf_release(&sub);
	names_release(&names);
	w->depth--;
	return rc;
}

int
ft_input_paths_expand(const char *const *paths, size_t n, struct ft_vec *out,
                      struct ft_error *err)
{
	struct walk w = { .out = out, .max = ft_input_max_files(), .err = err };
	struct stat st;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			rc = add(out, paths[i], NULL, err); /* its reader says what is wrong */
			continue;
		}
		w.top = paths[i];
		rc = walk_dir(&w, paths[i], &st);
	}
	return rc;
}

void
ft_input_paths_release(struct ft_vec *paths)
{
	for (size_t i = 0; i < paths->len; i++)
		ft_free(((struct ft_input_path *)ft_vec_at(paths, i))->path);
	ft_vec_release(paths);
}

int
ft_input_paths_none(const char *const *paths, size_t n, size_t nunknown, struct ft_error *err)
{
	struct ft_strbuf dirs;
	int rc;

	ft_strbuf_init(&dirs);
	for (size_t i = 0; i < n; i++)
		ft_strbuf_addf(&dirs, "%s%s", i ? ", " : "", paths[i]);
	if (nunknown)
		rc = ft_error_set(err, FT_EPARSE,
		                  "%s: no file in a known format (%zu file%s, none recognised; "
		                  "fabtune parse --list shows the formats)",
		                  dirs.buf, nunknown, nunknown == 1 ? "" : "s");
	else
		rc = ft_error_set(err, FT_ENOENT, "%s: no files in the folder%s", dirs.buf,
		                  n > 1 ? "s" : "");
	ft_strbuf_release(&dirs);
	return rc;
}

void
ft_input_skipped_text(struct ft_strbuf *sb, const struct ft_vec *skipped)
{
	if (!skipped->len)
		return;
	ft_strbuf_addf(sb, "skipped %zu file%s in no known format:", skipped->len,
	               skipped->len == 1 ? "" : "s");
	for (size_t i = 0; i < skipped->len; i++)
		ft_strbuf_addf(sb, "%s %s", i ? "," : "", FT_VEC_AT(skipped, const char *, i));
	ft_strbuf_addch(sb, '\n');
}

void
ft_input_skipped_json(struct ft_json *j, const struct ft_vec *skipped)
{
	ft_json_key(j, "skipped");
	ft_json_arr_begin(j);
	for (size_t i = 0; i < skipped->len; i++)
		ft_json_str(j, FT_VEC_AT(skipped, const char *, i));
	ft_json_arr_end(j);
}

bool
ft_input_paths_have_folder(const struct ft_vec *paths)
{
	for (size_t i = 0; i < paths->len; i++)
		if (FT_VEC_AT(paths, struct ft_input_path, i).dir)
			return true;
	return false;
}
