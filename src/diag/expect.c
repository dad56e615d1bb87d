/* SPDX-License-Identifier: MIT */
/*
 * diag/expect.c - reading expectations files: what a model (or a person)
 * expects a benchmark to reach, for the "busbw below model" rule.
 *
 * The file is YAML or JSON: a list of mappings {test, bytes, busbw_GBps,
 * lat_us}, either at the top level or under an "expectations" key. bytes
 * takes a number or a size ("8GiB", "1M"); 0 or absent means the plateau.
 * The one document reader (spec/doc.h) reads each entry by the table
 * below; errors name file:line:column and the field.
 */
#include "internal.h"

#include <float.h>

#include <fabtune/diag.h>

#include "spec/doc.h"

static const struct ft__doc_field fields[] = {
	{ "test", FT__DOC_STR, FT__DOC_AT(struct ft_expectation, test),
	  .what = "a test name like all_reduce_perf" },
	{ "bytes", FT__DOC_SIZE, FT__DOC_AT(struct ft_expectation, bytes),
	  .what = "a size like 8589934592 or 8GiB" },
	{ "busbw_GBps", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_expectation, busbw_GBps), .lo = 0,
	  .hi = DBL_MAX, .what = "a non-negative number" },
	{ "lat_us", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_expectation, lat_us), .lo = 0,
	  .hi = DBL_MAX, .what = "a non-negative number" },
};

static int
read_list(struct ft__doc *d, yaml_node_t *list, struct ft_vec *out)
{
	yaml_node_item_t *it;
	int rc;

	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *m = ft__doc_node(d, *it);
		struct ft_expectation x;

		memset(&x, 0, sizeof(x));
		if (!m)
			return ft__doc_fail(d, list, FT_EPARSE, NULL, "malformed list");
		/* fields are named alone ("bytes"), as users write them */
		rc = ft__doc_walk(d, m, "", fields, FT_ARRAY_SIZE(fields), &x, NULL);
		if (rc < 0)
			return rc;
		if (x.busbw_GBps <= 0 && x.lat_us <= 0)
			return ft__doc_fail(d, m, FT_EPARSE, NULL, "expected busbw_GBps or lat_us");
		rc = ft_vec_push(out, &x);
		if (rc < 0)
			return ft_error_set(d->err, rc, "%s: out of memory", d->file);
	}
	return 0;
}

int
ft_diag_expectations_read(const char *path, struct ft_vec *out, struct ft_error *err)
{
	struct ft__doc d = { 0 };
	yaml_node_t *root, *list;
	int rc;

	rc = ft__doc_open_file(&d, path, err);
	if (rc < 0)
		return rc;
	root = ft__doc_root(&d);
	list = root && root->type == YAML_MAPPING_NODE ? ft__doc_lookup(&d, root, "expectations") :
	                                                 root;
	if (!root)
		rc = ft__doc_fail(&d, NULL, FT_EPARSE, NULL,
		                  "expected a list of expectations, got nothing");
	else if (!list || list->type != YAML_SEQUENCE_NODE)
		rc = ft__doc_expected(&d, list ? list : root, NULL,
		                      "a list of {test, bytes, busbw_GBps, lat_us}");
	else
		rc = read_list(&d, list, out);
	ft__doc_close(&d);
	return rc;
}
