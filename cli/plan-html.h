/* SPDX-License-Identifier: MIT */
/*
 * cli/plan-html.h - the HTML page of `fabtune plan --html`.
 */
#ifndef FT_CLI_PLAN_HTML_H
#define FT_CLI_PLAN_HTML_H

#include <stddef.h>

#include <fabtune/fabtune.h>

/*
 * Render @p (with its timeline @ev and the search's best @rows of @tried
 * configurations) as a self-contained HTML page into @sb.
 */
int cli_plan_html(const char *spec_arg, const struct ft_plan *p, const struct ft_plan_event *ev,
                  size_t nev, const struct ft_plan_search_row *rows, size_t nrows, size_t tried,
                  struct ft_strbuf *sb);

#endif
