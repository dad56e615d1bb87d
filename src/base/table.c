/* SPDX-License-Identifier: MIT */
/*
 * base/table.c - aligned text tables (fabtune/table.h).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include <fabtune/table.h>

void
ft_table_init(struct ft_table *t)
{
	memset(t, 0, sizeof(*t));
	ft_vec_init(&t->cells, sizeof(char *));
	t->sep = "  ";
}

void
ft_table_release(struct ft_table *t)
{
	ft__vec_release_ptrs(&t->cells);
	t->ncols = 0;
}

void
ft_table_col(struct ft_table *t, const char *header, enum ft_align align)
{
	if (t->ncols >= FT_TABLE_MAX_COLS)
		return;
	t->header[t->ncols] = header;
	t->align[t->ncols] = align;
	t->ncols++;
}

int
ft_table_cell(struct ft_table *t, const char *text)
{
	char *copy = ft_strdup(text ? text : "");

	if (!copy) {
		t->oom = true;
		return FT_ENOMEM;
	}
	if (ft_vec_push(&t->cells, &copy) < 0) {
		ft_free(copy);
		t->oom = true;
		return FT_ENOMEM;
	}
	return 0;
}

int
ft_table_cellf(struct ft_table *t, const char *fmt, ...)
{
	struct ft_strbuf sb;
	va_list ap;
	int rc;

	ft_strbuf_init(&sb);
	va_start(ap, fmt);
	ft_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rc = sb.oom ? FT_ENOMEM : ft_table_cell(t, sb.buf);
	if (sb.oom)
		t->oom = true;
	ft_strbuf_release(&sb);
	return rc;
}

size_t
ft_table_nrows(const struct ft_table *t)
{
	return t->ncols ? (t->cells.len + t->ncols - 1) / t->ncols : 0;
}

/*
 * Display width: count UTF-8 lead bytes only, and nothing of an ANSI SGR
 * sequence (ESC [ ... m), so that coloured cells line up.
 */
static size_t
width(const char *s)
{
	size_t w = 0;

	for (; *s; s++) {
		if (s[0] == '\033' && s[1] == '[') {
			s += 2;
			while (*s && !(*s >= 0x40 && *s <= 0x7e))
				s++;
			if (!*s)
				break;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	}
	return w;
}

static void
put_cell(struct ft_strbuf *out, const char *s, size_t w, enum ft_align align, bool last)
{
	size_t sw = width(s);
	size_t pad = w > sw ? w - sw : 0;

	if (align == FT_ALIGN_RIGHT)
		ft_strbuf_addchars(out, ' ', pad);
	ft_strbuf_adds(out, s);
	if (align == FT_ALIGN_LEFT && !last)
		ft_strbuf_addchars(out, ' ', pad);
}

void
ft_table_render(const struct ft_table *t, struct ft_strbuf *out)
{
	size_t w[FT_TABLE_MAX_COLS] = { 0 };
	size_t nrows = ft_table_nrows(t);
	size_t r, c;

	/* (a cell missing would shift every later one into the wrong column) */
	if (t->oom) {
		out->oom = true;
		return;
	}

	for (c = 0; c < t->ncols; c++)
		w[c] = t->no_header ? 0 : width(t->header[c]);
	for (r = 0; r < t->cells.len; r++) {
		size_t cw = width(FT_VEC_AT(&t->cells, char *, r));

		if (cw > w[r % t->ncols])
			w[r % t->ncols] = cw;
	}
	if (!t->no_header && t->ncols) {
		if (t->line_prefix)
			ft_strbuf_adds(out, t->line_prefix);
		for (c = 0; c < t->ncols; c++) {
			if (c)
				ft_strbuf_adds(out, t->sep);
			put_cell(out, t->header[c], w[c], t->align[c], c + 1 == t->ncols);
		}
		ft_strbuf_addch(out, '\n');
	}
	for (r = 0; r < nrows; r++) {
		if (t->line_prefix)
			ft_strbuf_addchars(out, ' ', strlen(t->line_prefix));
		for (c = 0; c < t->ncols; c++) {
			size_t i = r * t->ncols + c;
			const char *s = i < t->cells.len ? FT_VEC_AT(&t->cells, char *, i) : "";

			if (c)
				ft_strbuf_adds(out, t->sep);
			put_cell(out, s, w[c], t->align[c], c + 1 == t->ncols);
		}
		ft_strbuf_addch(out, '\n');
	}
}
