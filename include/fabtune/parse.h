/* SPDX-License-Identifier: MIT */
/*
 * fabtune/parse.h - parsers for the outputs of fabric, host and benchmark tools.
 *
 * One parser per tool output format, in a static const registry. A parser
 * turns text into observations (keys in docs/internals/observations.md) and,
 * for benchmark outputs, result rows. Bad content never fails a parse: lines
 * a parser cannot read become `parse.skipped` observations naming file:line.
 */
#ifndef FABTUNE_PARSE_H
#define FABTUNE_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/error.h>
#include <fabtune/obs.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One parser per tool output format, in a static const registry (src/parse/registry.c). */
struct ft_parser {
	const char *name;    /* "ibstat", "ibstatus", "ibv_devinfo", "perfquery", "ibqueryerrors",
	                        "iblinkinfo", "ethtool-S", "ethtool", "show_gids", "mlnx_qos",
	                        "nvidia-smi-topo", "lspci", "nccl-log", "nccl-tests", "perftest",
	                        "osu", "iperf3-json", ... */
	const char *summary; /* one line */
	/* Confidence 0..100 that @text is this format (looks at the first few KB only). */
	int (*sniff)(const char *text, size_t len);
	/* Append observations (and, for benchmark outputs, result rows to @run when non-NULL).
	   Never fails on bad content: unreadable lines become `parse.skipped` observations with
	   file:line. Returns 0, or FT_ENOMEM. */
	int (*parse)(const char *text, size_t len, const char *file, struct ft_obs_set *out,
	             struct ft_run *run, struct ft_error *err);
};

FT_API size_t ft_parser_count(void);
FT_API const struct ft_parser *ft_parser_at(size_t i);
FT_API const struct ft_parser *ft_parser_find(const char *name);               /* NULL if none */
FT_API const struct ft_parser *ft_parser_detect(const char *text, size_t len); /* NULL if none */

/* Parse a buffer / a file; @format NULL = auto-detect (FT_EPARSE "FILE: unrecognised format"
   naming the file when nothing matches). A file holding several tools' outputs concatenated
   (e.g. a support bundle) may be split and each part handed to its parser. */
FT_API int ft_parse_buffer(const char *text, size_t len, const char *file, const char *format,
                           struct ft_obs_set *out, struct ft_run *run, struct ft_error *err);
FT_API int ft_parse_file(const char *path, const char *format, struct ft_obs_set *out,
                         struct ft_run *run, struct ft_error *err);
/* ft_parse_file(), but a file in no known format (or blank) is no error when @format is NULL:
   *@known is set false and nothing is added (a file found in a folder, which may hold
   anything). A file recognised but malformed keeps its error. */
FT_API int ft_parse_file_known(const char *path, const char *format, struct ft_obs_set *out,
                               struct ft_run *run, bool *known, struct ft_error *err);

/* ---- output: JSON and table text ------------------------------------------ */

struct ft_json;
struct ft_strbuf;

/* Write @set as a JSON array of objects {key, host, device, port, rank, num, unit, str,
   file, line}; empty/unknown fields are left out. Deterministic. */
FT_API void ft_parse_obs_to_json(struct ft_json *j, const struct ft_obs_set *set);
/* Write @run's rows as a JSON array of objects; NaN figures are left out. */
FT_API void ft_parse_rows_to_json(struct ft_json *j, const struct ft_run *run);
/* Text value of an observation for tables: "200 Gbps", "Active", "3 (fe80::1)". */
FT_API void ft_parse_obs_value(const struct ft_obs *o, char *buf, size_t len);

/* The observations of @set from index @from (at most its length) on: a view into @set,
   not owned (never released), valid while @set is unchanged. */
FT_API struct ft_obs_set ft_parse_obs_since(const struct ft_obs_set *set, size_t from);
/* Whether a file read into @view (its observations) and @run gave nothing but lines
   passed over (parse.skipped): no row, no other observation. A file read as a format
   the user named that gives nothing is another tool's output or not text at all. */
FT_API bool ft_parse_read_nothing(const struct ft_obs_set *view, const struct ft_run *run);
/* The formats of the registry as a table (format, reads) or JSON {"formats": [{name,
   summary}]}. */
FT_API void ft_parse_write_formats(struct ft_strbuf *sb, bool json);
/* @set as a table (source file:line when @with_source, entity, key, value). */
FT_API void ft_parse_write_obs(struct ft_strbuf *sb, const struct ft_obs_set *set,
                               bool with_source);
/* What @file held, as text: "FILE: N observations", then a table of @obs (source, entity,
   key, value) and one of @run's rows; with @summary a count per key in order of first
   appearance instead of the observations, and a line for the rows. */
FT_API void ft_parse_write_file(struct ft_strbuf *sb, const char *file,
                                const struct ft_obs_set *obs, const struct ft_run *run,
                                bool summary);
/* The same as one JSON object {file, kind (when known), observations, rows}. */
FT_API void ft_parse_file_json(struct ft_json *j, const char *file, const struct ft_obs_set *obs,
                               const struct ft_run *run);

#ifdef __cplusplus
}
#endif
#endif
