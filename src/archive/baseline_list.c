/* SPDX-License-Identifier: MIT */
/*
 * archive/baseline_list.c - the list of baselines as lines ("NAME: N runs,
 * newest ID") or a JSON object {"baselines": [{name, runs, newest}]}.
 */
#include "archive_int.h"

void
ft_archive_baseline_list_write(struct ft_strbuf *sb, const struct ft_baseline_info *list,
                               size_t n, bool json)
{
	struct ft_json j;

	if (!json && n == 0) {
		ft_strbuf_adds(sb, "no baselines (add one with 'fabtune archive baseline add NAME "
		                   "RUN')\n");
		return;
	}
	if (!json) {
		for (size_t i = 0; i < n; i++)
			ft_strbuf_addf(sb, "%s: %zu run%s, newest %" PRId64 "\n", list[i].name,
			               list[i].nruns, list[i].nruns == 1 ? "" : "s", list[i].newest);
		return;
	}
	ft_json_init(&j, sb, true);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "baselines");
	ft_json_arr_begin(&j);
	for (size_t i = 0; i < n; i++) {
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "name", list[i].name);
		ft_json_kv_uint(&j, "runs", list[i].nruns);
		ft_json_kv_int(&j, "newest", list[i].newest);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}
