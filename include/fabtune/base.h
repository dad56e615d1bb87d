/* SPDX-License-Identifier: MIT */
/*
 * fabtune/base.h - allocation, arenas, vectors and string buffers.
 *
 * All heap use in libfabtune goes through ft_malloc() and friends, which are
 * overflow-checked and honour FT_FAULT_ALLOC=N (the Nth allocation fails) so
 * that tests can sweep out-of-memory paths. Arenas serve phase-shaped lifetimes
 * (a parsed spec, a built topology); vectors serve growing containers.
 */
#ifndef FABTUNE_BASE_H
#define FABTUNE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FT_MIN(a, b)	 ((a) < (b) ? (a) : (b))
#define FT_MAX(a, b)	 ((a) > (b) ? (a) : (b))
#define ft_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* ---- allocation ---------------------------------------------------------- */

FT_API void *ft_malloc(size_t size);
FT_API void *ft_calloc(size_t n, size_t size);
/* Returns NULL on overflow of n * size or on failure; @p is then untouched. */
FT_API void *ft_reallocarray(void *p, size_t n, size_t size);
FT_API void ft_free(void *p);
FT_API char *ft_strdup(const char *s);
FT_API char *ft_strndup(const char *s, size_t n);

/* ---- arena: chained blocks, bump pointer --------------------------------- */

struct ft_arena_block;
struct ft_arena {
	struct ft_arena_block *head; /* newest block first */
	size_t block_bytes;	     /* default block size; 0 picks 64 KiB */
	size_t used_bytes;	     /* total bytes handed out, for statistics */
};

FT_API void ft_arena_init(struct ft_arena *a, size_t block_bytes);
/* Zeroed memory, valid until ft_arena_release(). NULL on out of memory. */
FT_API void *ft_arena_alloc(struct ft_arena *a, size_t size, size_t align);
FT_API char *ft_arena_strdup(struct ft_arena *a, const char *s);
FT_API void ft_arena_release(struct ft_arena *a);
#define FT_ARENA_NEW(a, type) ((type *)ft_arena_alloc((a), sizeof(type), _Alignof(type)))
#define FT_ARENA_ARRAY(a, type, n)                                                                 \
	((n) > SIZE_MAX / sizeof(type) ? NULL                                                      \
				       : (type *)ft_arena_alloc((a), (n) * sizeof(type), _Alignof(type)))

/* ---- vector: a growing array of fixed-size elements ---------------------- */

struct ft_vec {
	void *data;
	size_t len;	  /* elements in use */
	size_t cap;	  /* elements allocated */
	size_t elem_size; /* bytes per element */
};

FT_API void ft_vec_init(struct ft_vec *v, size_t elem_size);
/* Ensure room for @n more elements. 0 or FT_ENOMEM. */
FT_API int ft_vec_reserve(struct ft_vec *v, size_t n) FT_MUST_CHECK;
/* Append a copy of *@elem (or a zeroed element when @elem is NULL). */
FT_API int ft_vec_push(struct ft_vec *v, const void *elem) FT_MUST_CHECK;
FT_API void ft_vec_release(struct ft_vec *v);
static inline void *
ft_vec_at(const struct ft_vec *v, size_t i)
{
	return (char *)v->data + i * v->elem_size;
}
#define FT_VEC_AT(v, type, i) (((type *)(v)->data)[i])

/* ---- string buffer (git's strbuf) ---------------------------------------- */

/* Invariant: buf is always NUL-terminated, also when len == 0. */
struct ft_strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom; /* an append failed; the content is truncated */
};

FT_API void ft_strbuf_init(struct ft_strbuf *sb);
FT_API void ft_strbuf_release(struct ft_strbuf *sb);
FT_API void ft_strbuf_reset(struct ft_strbuf *sb);
FT_API void ft_strbuf_add(struct ft_strbuf *sb, const void *data, size_t len);
FT_API void ft_strbuf_adds(struct ft_strbuf *sb, const char *s);
FT_API void ft_strbuf_addch(struct ft_strbuf *sb, char c);
FT_API void ft_strbuf_addf(struct ft_strbuf *sb, const char *fmt, ...) FT_PRINTF(2, 3);
FT_API void ft_strbuf_vaddf(struct ft_strbuf *sb, const char *fmt, va_list ap) FT_PRINTF(2, 0);
/* Append @n copies of @c. */
FT_API void ft_strbuf_addchars(struct ft_strbuf *sb, char c, size_t n);
/* Hand the buffer to the caller (free with ft_free) and reinitialize @sb. */
FT_API char *ft_strbuf_detach(struct ft_strbuf *sb, size_t *len);
/*
 * Append a whole regular file to @sb (base/file.c). Refuses directories,
 * FIFOs, devices and sockets without blocking (FT_EINVAL), files over
 * ft_input_max_bytes() (FT_ERANGE), and stops on allocation failure
 * (FT_ENOMEM); FT_ENOENT when missing, FT_EIO on a read error. The path is
 * in every message.
 */
FT_API int ft_strbuf_read_file(struct ft_strbuf *sb, const char *path, struct ft_error *err)
	FT_MUST_CHECK;

/* ---- inputs: files and folders (base/walk.c) ----------------------------- */

/* One input of a command: a path as given, or a file found under a folder given. */
struct ft_input_path {
	char *path;	 /* owned: the folder given joined with the names below it */
	const char *dir; /* the folder given that held it (the caller's string); NULL: given */
};

/* Most files taken from the folders of one command: FABTUNE_MAX_FILES or 10000. */
FT_API size_t ft_input_max_files(void);
/*
 * Append to @out (ft_vec of struct ft_input_path) the @n @paths, each
 * folder replaced by the regular files under it: depth first, each level's
 * names in byte order, names starting with '.' left out, links followed but
 * never back to a folder on the way down, FIFOs, sockets and devices left
 * out. A path that is not a folder is kept as given (its reader tells what
 * is wrong with it). FT_ERANGE naming the folder past ft_input_max_files()
 * files, FT_EIO naming a folder that cannot be read, FT_ENOMEM. Release @out
 * with ft_input_paths_release() in every case.
 */
FT_API int ft_input_paths_expand(const char *const *paths, size_t n, struct ft_vec *out,
				 struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_input_paths_release(struct ft_vec *paths);
/* Whether one of @paths (struct ft_input_path) was found in a folder. */
FT_API bool ft_input_paths_have_folder(const struct ft_vec *paths);
/*
 * The error when the @n @paths, all folders, gave no file to read: FT_EPARSE
 * naming them when they held @nunknown files in no known format, else
 * FT_ENOENT "no files in the folder". Returns the code.
 */
FT_API int ft_input_paths_none(const char *const *paths, size_t n, size_t nunknown,
			       struct ft_error *err);
struct ft_json;
/* "skipped N files in no known format: a, b\n" for @skipped (const char *); nothing if none. */
FT_API void ft_input_skipped_text(struct ft_strbuf *sb, const struct ft_vec *skipped);
/* "skipped": [a, b] as a member of the object open in @j. */
FT_API void ft_input_skipped_json(struct ft_json *j, const struct ft_vec *skipped);

/* ---- files: the bounded reader and the safe writer (base/file.c) --------- */

/* Largest input file read, bytes: FABTUNE_MAX_INPUT (a size: 64M, 4G) or 1 GiB. */
FT_API uint64_t ft_input_max_bytes(void);
/*
 * Open @path for reading as ft_strbuf_read_file() checks it (regular file, not
 * over the cap, never blocking on a FIFO). Returns a descriptor >= 0 (close it)
 * with the size in @size when not NULL, or FT_E* with the path in @err.
 */
FT_API int ft_file_open_input(const char *path, uint64_t *size, struct ft_error *err)
	FT_MUST_CHECK;
/*
 * Replace @path with @len bytes of @data: a new temporary file beside it
 * (O_EXCL|O_NOFOLLOW), fsync, rename. An existing target that is not a regular
 * file (symlink, FIFO, device, directory) is refused with FT_EINVAL and left
 * untouched; an existing file keeps its permission bits. FT_EIO on a write
 * error; the path is in every message.
 */
FT_API int ft_file_write(const char *path, const void *data, size_t len, struct ft_error *err)
	FT_MUST_CHECK;
/*
 * Open @path, which starts with @root, for reading (a regular file, or a
 * directory when @dir), as if @root were "/": symlinks (absolute ones too)
 * and ".." never lead out of @root (openat2 RESOLVE_IN_ROOT, or a realpath
 * check on older kernels). An empty @root or "/" is the live system. Never
 * blocks on a FIFO. A descriptor >= 0, or FT_ENOENT / FT_EINVAL (not a
 * regular file, leads out of the root) / FT_EIO with the path in @err.
 */
FT_API int ft_file_open_under(const char *root, const char *path, bool dir, struct ft_error *err)
	FT_MUST_CHECK;
/*
 * Check before long work that @path (named @what in messages: an option)
 * can be written: "-" (stdout) and NULL always can; otherwise its folder
 * exists and is writable (ft_file_write() writes beside the file and
 * renames), and the path is no folder nor a read-only file. FT_ENOENT or
 * FT_EINVAL naming @what, the path and what is wrong.
 */
FT_API int ft_file_check_writable(const char *what, const char *path, struct ft_error *err)
	FT_MUST_CHECK;
/* "regular file", "FIFO", "character device"... for an st_mode. */
FT_API const char *ft_file_type_name(unsigned mode);

/*
 * Append @n bytes of @s as text safe for a terminal: control characters but
 * newline, tab and CR before LF (C0, DEL, and the C1 range U+0080 to U+009F, which some
 * terminals obey) and bytes that are not UTF-8 become visible escapes,
 * \x1b or \u009b; everything else is copied.
 */
FT_API void ft_strbuf_add_printable(struct ft_strbuf *sb, const char *s, size_t n);
/* Room for the longest escape ft_printable_piece() writes ("\u009b" and its NUL). */
#define FT_PRINTABLE_ESC 8
/*
 * The piece of @s (@n bytes, at least one) ft_strbuf_add_printable() takes at once, and
 * how it writes it: returns the piece's length (a byte, or a UTF-8 sequence), with @esc
 * the piece's escape (\x1b, \u009b) or "" where the piece is copied as it is. Allocates
 * nothing, for writers with no buffer to grow (a message out of memory). 0 for @n 0.
 */
FT_API size_t ft_printable_piece(const char *s, size_t n, char esc[FT_PRINTABLE_ESC]);
/*
 * Length of the well-formed UTF-8 sequence at @s (1 to 4 bytes, at most @n),
 * or 0 when the bytes there are not UTF-8 (a stray continuation byte, an
 * overlong form, a surrogate, a code point above U+10FFFF, a cut sequence).
 */
FT_API size_t ft_utf8_seq_len(const char *s, size_t n);

/* Copy @src into @dst of @size bytes, truncating, always NUL-terminated. */
FT_API size_t ft_strlcpy(char *dst, const char *src, size_t size);

/*
 * The name of @known (@n names) closest to @key by edit distance, for a "did
 * you mean" hint after an unknown key, option, command or preset; NULL when
 * none is close (within a third of @key's length, at least 2 edits).
 */
FT_API const char *ft_name_closest(const char *key, const char *const *known, size_t n);

/* ---- number parsing with field names in errors --------------------------- */

/* Parse a whole string as an unsigned/signed integer or a double. FT_EPARSE. */
FT_API int ft_parse_u64(const char *s, uint64_t *out) FT_MUST_CHECK;
FT_API int ft_parse_i64(const char *s, int64_t *out) FT_MUST_CHECK;
FT_API int ft_parse_double(const char *s, double *out) FT_MUST_CHECK;

#ifdef __cplusplus
}
#endif
#endif
