/* SPDX-License-Identifier: MIT */
/*
 * fabtune/json.h - a streaming JSON writer into a string buffer.
 *
 * The writer tracks nesting and commas, escapes strings, prints doubles in a
 * fixed, locale-free format ("%.17g" trimmed when shorter forms round-trip is
 * not needed: see ft_json_double_prec) and writes non-finite numbers as null.
 * Output is compact by default; pretty = true indents by two spaces.
 * Reading JSON goes through libyaml (JSON is accepted wherever YAML is).
 */
#ifndef FABTUNE_JSON_H
#define FABTUNE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_JSON_MAX_DEPTH 64

struct ft_json {
	struct ft_strbuf *out; /* borrowed */
	bool pretty;
	int depth;
	bool first[FT_JSON_MAX_DEPTH]; /* no element yet at this depth */
	bool after_key;		       /* a key was written, its value is next */
};

FT_API void ft_json_init(struct ft_json *j, struct ft_strbuf *out, bool pretty);
FT_API void ft_json_obj_begin(struct ft_json *j);
FT_API void ft_json_obj_end(struct ft_json *j);
FT_API void ft_json_arr_begin(struct ft_json *j);
FT_API void ft_json_arr_end(struct ft_json *j);
FT_API void ft_json_key(struct ft_json *j, const char *key);
FT_API void ft_json_str(struct ft_json *j, const char *s);
FT_API void ft_json_strn(struct ft_json *j, const char *s, size_t n);
FT_API void ft_json_int(struct ft_json *j, int64_t v);
FT_API void ft_json_uint(struct ft_json *j, uint64_t v);
/* Shortest "%.*g" (up to 17 digits) that reads back as the same double. */
FT_API void ft_json_double(struct ft_json *j, double v);
/* Fixed number of significant digits, for stable human-facing output. */
FT_API void ft_json_double_prec(struct ft_json *j, double v, int digits);
FT_API void ft_json_bool(struct ft_json *j, bool v);
FT_API void ft_json_null(struct ft_json *j);
/* Append pre-rendered JSON text as one value. */
FT_API void ft_json_raw(struct ft_json *j, const char *text);

/* key + value helpers */
FT_API void ft_json_kv_str(struct ft_json *j, const char *key, const char *s);
FT_API void ft_json_kv_int(struct ft_json *j, const char *key, int64_t v);
FT_API void ft_json_kv_uint(struct ft_json *j, const char *key, uint64_t v);
FT_API void ft_json_kv_double(struct ft_json *j, const char *key, double v);
FT_API void ft_json_kv_bool(struct ft_json *j, const char *key, bool v);

/* Append @s JSON-escaped (without quotes) to @sb. */
/* (Every byte not part of well-formed UTF-8 is written as U+FFFD.) */
FT_API void ft_json_escape(struct ft_strbuf *sb, const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
