/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-parse.c - `fabtune parse FILE...`: read tool outputs (ibstat,
 * perfquery, ethtool -S, nvidia-smi topo -m, NCCL logs, nccl-tests, perftest,
 * ...) and print the observations and result rows they hold.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

static void
list_formats(struct cli_ctx *ctx)
{
	struct ft_strbuf sb;
	struct ft_json j;
	struct ft_table t;

	ft_strbuf_init(&sb);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_key(&j, "formats");
		ft_json_arr_begin(&j);
		for (size_t i = 0; i < ft_parser_count(); i++) {
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "name", ft_parser_at(i)->name);
			ft_json_kv_str(&j, "summary", ft_parser_at(i)->summary);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		ft_table_init(&t);
		ft_table_col(&t, "format", FT_ALIGN_LEFT);
		ft_table_col(&t, "reads", FT_ALIGN_LEFT);
		for (size_t i = 0; i < ft_parser_count(); i++) {
			(void)ft_table_cell(&t, ft_parser_at(i)->name);
			(void)ft_table_cell(&t, ft_parser_at(i)->summary);
		}
		ft_table_render(&t, &sb);
		ft_table_release(&t);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
}

static void
cell_num(struct ft_table *t, double v, const char *fmt)
{
	if (isnan(v))
		(void)ft_table_cell(t, "-");
	else
		(void)ft_table_cellf(t, fmt, v);
}

static void
text_rows(struct ft_strbuf *sb, const struct ft_run *run, const char *file)
{
	struct ft_table t;

	if (!ft_run_nrows(run))
		return;
	ft_strbuf_addf(sb, "\n%s: %zu result rows (%s)\n", file, ft_run_nrows(run),
	               run->kind[0] ? run->kind : "import");
	ft_table_init(&t);
	ft_table_col(&t, "test", FT_ALIGN_LEFT);
	ft_table_col(&t, "bytes", FT_ALIGN_RIGHT);
	ft_table_col(&t, "time_us", FT_ALIGN_RIGHT);
	ft_table_col(&t, "algbw_GBps", FT_ALIGN_RIGHT);
	ft_table_col(&t, "busbw_GBps", FT_ALIGN_RIGHT);
	ft_table_col(&t, "wrong", FT_ALIGN_RIGHT);
	ft_table_col(&t, "lat_p50_us", FT_ALIGN_RIGHT);
	ft_table_col(&t, "lat_p99_us", FT_ALIGN_RIGHT);
	for (size_t i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		(void)ft_table_cell(&t, r->test);
		(void)ft_table_cellf(&t, "%" PRIu64, r->bytes);
		cell_num(&t, r->time_us, "%.2f");
		cell_num(&t, r->algbw_GBps, "%.2f");
		cell_num(&t, r->busbw_GBps, "%.2f");
		if (r->wrong >= 0)
			(void)ft_table_cellf(&t, "%" PRId64, r->wrong);
		else
			(void)ft_table_cell(&t, "-");
		cell_num(&t, r->lat_p50_us, "%.2f");
		cell_num(&t, r->lat_p99_us, "%.2f");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

static void
text_obs(struct ft_strbuf *sb, const struct ft_obs_set *set, size_t from, size_t to)
{
	struct ft_table t;
	char ent[200], val[240];

	ft_table_init(&t);
	ft_table_col(&t, "source", FT_ALIGN_LEFT);
	ft_table_col(&t, "entity", FT_ALIGN_LEFT);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "value", FT_ALIGN_LEFT);
	for (size_t i = from; i < to; i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		ft_obs_entity(o, ent, sizeof(ent));
		ft_parse_obs_value(o, val, sizeof(val));
		(void)ft_table_cellf(&t, "%s:%u", o->file, o->line);
		(void)ft_table_cell(&t, ent);
		(void)ft_table_cell(&t, o->key);
		(void)ft_table_cell(&t, val[0] ? val : "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

/* Per-key counts, in order of first appearance (keys found through a small hash table). */
static void
text_summary(struct ft_strbuf *sb, const struct ft_obs_set *set, size_t from, size_t to)
{
	enum {
		NSLOT = 4096
	}; /* far more than the keys any input has */
	struct ft_table t;
	size_t nkeys = 0;
	const char **keys = ft_calloc(NSLOT, sizeof(*keys));
	size_t *counts = ft_calloc(NSLOT, sizeof(*counts));
	uint16_t *order = ft_calloc(NSLOT, sizeof(*order));

	if (!keys || !counts || !order)
		goto out;
	for (size_t i = from; i < to; i++) {
		const char *k = ft_obs_set_at(set, i)->key;
		uint32_t h = 2166136261u;
		size_t slot, n;

		for (const char *q = k; *q; q++)
			h = (h ^ (unsigned char)*q) * 16777619u;
		slot = h % NSLOT;
		for (n = 0; n < NSLOT && keys[slot] && strcmp(keys[slot], k) != 0; n++)
			slot = (slot + 1) % NSLOT;
		if (n == NSLOT)
			continue; /* table full: more distinct keys than slots */
		if (!keys[slot]) {
			keys[slot] = k;
			order[nkeys++] = (uint16_t)slot;
		}
		counts[slot]++;
	}
	ft_table_init(&t);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "count", FT_ALIGN_RIGHT);
	for (size_t j = 0; j < nkeys; j++) {
		(void)ft_table_cell(&t, keys[order[j]]);
		(void)ft_table_cellf(&t, "%zu", counts[order[j]]);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
out:
	ft_free(keys);
	ft_free(counts);
	ft_free(order);
}

int
cmd_parse(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune parse FILE... [--format NAME] [--json]",
		                                "fabtune parse --list", NULL };
	const char *format = NULL;
	bool list = false, summary = false, save = false;
	const struct opt opts[] = {
		OPT_STRING('f', "format", &format, "NAME",
		           "read every FILE as this format (default: detect from the content)"),
		OPT_BOOL(0, "list", &list, "list the formats and exit"),
		OPT_BOOL(0, "summary", &summary,
		         "print a count per key instead of each observation"),
		OPT_BOOL(0, "save", &save, "store each file's rows and observations in the archive"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"parse", synopsis,
		"Read outputs of fabric, host and benchmark tools and print what they show.", opts
	};
	struct ft_obs_set set;
	struct ft_strbuf sb;
	struct ft_json j;
	int n = opts_parse(&usage, ctx, argc, argv), rc = 0;

	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (list) {
		list_formats(ctx);
		return EXIT_OK;
	}
	if (n < 1) {
		cli_error(ctx, "no input file (fabtune parse FILE..., or --list)");
		return EXIT_USAGE;
	}
	if (format && !ft_parser_find(format)) {
		cli_error(ctx, "--format: unknown format '%s' (fabtune parse --list shows them)",
		          format);
		return EXIT_USAGE;
	}
	ft_obs_set_init(&set);
	ft_strbuf_init(&sb);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_key(&j, "files");
		ft_json_arr_begin(&j);
	}
	for (int i = 1; i <= n; i++) {
		struct ft_error err;
		struct ft_run run;
		size_t from = ft_obs_set_len(&set);

		ft_error_clear(&err);
		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		rc = ft_parse_file(argv[i], format, &set, &run, &err);
		if (rc < 0) {
			ft_run_release(&run);
			rc = cli_fail(ctx, rc, &err);
			break;
		}
		if (ctx->json) {
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "file", argv[i]);
			if (run.kind[0])
				ft_json_kv_str(&j, "kind", run.kind);
			ft_json_key(&j, "observations");
			{
				struct ft_obs_set view = set;

				/* only this file's observations */
				view.v.data = ft_vec_at(&set.v, from);
				view.v.len = ft_obs_set_len(&set) - from;
				ft_parse_obs_to_json(&j, &view);
			}
			ft_json_key(&j, "rows");
			ft_parse_rows_to_json(&j, &run);
			ft_json_obj_end(&j);
		} else {
			if (i > 1)
				ft_strbuf_addch(&sb, '\n');
			ft_strbuf_addf(&sb, "%s: %zu observations\n", argv[i],
			               ft_obs_set_len(&set) - from);
			if (summary) {
				text_summary(&sb, &set, from, ft_obs_set_len(&set));
				if (ft_run_nrows(&run))
					ft_strbuf_addf(&sb, "%s: %zu result rows (%s)\n", argv[i],
					               ft_run_nrows(&run),
					               run.kind[0] ? run.kind : "import");
			} else {
				text_obs(&sb, &set, from, ft_obs_set_len(&set));
				text_rows(&sb, &run, argv[i]);
			}
		}
		if (save) {
			struct ft_obs_set view = set;

			view.v.data = ft_vec_at(&set.v, from);
			view.v.len = ft_obs_set_len(&set) - from;
			ft_strlcpy(run.label, argv[i], sizeof(run.label));
			if (!run.kind[0])
				ft_strlcpy(run.kind, "import", sizeof(run.kind));
			if (cli_save_run(ctx, &run, &view, NULL, 0) < 0) {
				ft_run_release(&run);
				rc = EXIT_RUNTIME;
				break;
			}
		}
		ft_run_release(&run);
	}
	if (rc == 0) {
		if (ctx->json) {
			ft_json_arr_end(&j);
			ft_json_obj_end(&j);
			ft_strbuf_addch(&sb, '\n');
		}
		cli_write(&sb);
	}
	ft_strbuf_release(&sb);
	ft_obs_set_release(&set);
	return rc;
}
