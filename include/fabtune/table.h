/* SPDX-License-Identifier: MIT */
/*
 * fabtune/table.h - aligned text tables rendered into a string buffer.
 *
 * Columns are declared once with a header and an alignment; rows are added as
 * strings; ft_table_render() pads every column to its widest cell. A prefix
 * (e.g. "#" for nccl-tests-shaped tables) can lead every line.
 */
#ifndef FABTUNE_TABLE_H
#define FABTUNE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_TABLE_MAX_COLS 32

enum ft_align { FT_ALIGN_LEFT, FT_ALIGN_RIGHT };

struct ft_table {
	size_t ncols;
	const char *header[FT_TABLE_MAX_COLS]; /* borrowed, must outlive the table */
	enum ft_align align[FT_TABLE_MAX_COLS];
	struct ft_vec cells; /* char *, row-major, owned */
	const char *line_prefix; /* borrowed; NULL for none */
	const char *sep;	 /* between columns; default two spaces */
	bool no_header;
	bool oom; /* a cell could not be added: the render marks its buffer oom */
};

FT_API void ft_table_init(struct ft_table *t);
FT_API void ft_table_release(struct ft_table *t);
FT_API void ft_table_col(struct ft_table *t, const char *header, enum ft_align align);
/* Add one cell (copied); rows wrap every ncols cells. */
FT_API int ft_table_cell(struct ft_table *t, const char *text);
FT_API int ft_table_cellf(struct ft_table *t, const char *fmt, ...) FT_PRINTF(2, 3);
FT_API size_t ft_table_nrows(const struct ft_table *t);
/* Cells may hold ANSI colour sequences (FT_ANSI_*): they take no width. */
FT_API void ft_table_render(const struct ft_table *t, struct ft_strbuf *out);

/* ANSI SGR colours for terminal output; callers decide whether to use them. */
#define FT_ANSI_RED "\033[31m"
#define FT_ANSI_GREEN "\033[32m"
#define FT_ANSI_YELLOW "\033[33m"
#define FT_ANSI_CYAN "\033[36m"
#define FT_ANSI_BOLD_RED "\033[1;31m"
#define FT_ANSI_RESET "\033[0m"

#ifdef __cplusplus
}
#endif
#endif
