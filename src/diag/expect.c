/* SPDX-License-Identifier: MIT */
/*
 * diag/expect.c - reading expectations files: what a model (or a person)
 * expects a benchmark to reach, for the "busbw below model" rule.
 *
 * The file is YAML or JSON: a list of mappings {test, bytes, busbw_GBps,
 * lat_us}, either at the top level or under an "expectations" key. bytes
 * takes a number or a size ("8GiB", "1M"); 0 or absent means the plateau.
 * Errors name file:line:column and the field.
 */
#include "internal.h"

#include <yaml.h>

#include <fabtune/diag.h>
#include <fabtune/spec.h>
#include <fabtune/units.h>

static int
node_error(struct ft_error *err, const char *path, const yaml_node_t *n, const char *fmt,
	   const char *what)
{
	return ft_error_set(err, FT_EPARSE, "%s:%zu:%zu: %s%s", path, n->start_mark.line + 1,
			    n->start_mark.column + 1, fmt, what ? what : "");
}

static const char *
scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int
read_number(const char *path, const yaml_node_t *v, const char *field, double *out,
	    struct ft_error *err)
{
	const char *s = scalar(v);
	char msg[96];

	if (!s || ft_parse_double(s, out) < 0 || *out < 0 || !isfinite(*out)) {
		snprintf(msg, sizeof(msg), "%s: expected a non-negative number, got '%.40s'", field,
			 s ? s : "(not a scalar)");
		return node_error(err, path, v, msg, NULL);
	}
	return 0;
}

static int
read_entry(const char *path, yaml_document_t *doc, const yaml_node_t *m, struct ft_expectation *x,
	   struct ft_error *err)
{
	yaml_node_pair_t *p;

	memset(x, 0, sizeof(*x));
	if (m->type != YAML_MAPPING_NODE)
		return node_error(err, path, m,
				  "expected a mapping {test, bytes, busbw_GBps, lat_us}", NULL);
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key = k ? scalar(k) : NULL;
		int rc;

		if (!key || !v)
			return node_error(err, path, m, "malformed mapping", NULL);
		if (strcmp(key, "test") == 0) {
			if (!scalar(v) || strlen(scalar(v)) >= sizeof(x->test))
				return node_error(err, path, v,
						  "test: expected a test name like "
						  "all_reduce_perf",
						  NULL);
			ft_strlcpy(x->test, scalar(v), sizeof(x->test));
		} else if (strcmp(key, "bytes") == 0) {
			if (!scalar(v) || ft_parse_size(scalar(v), &x->bytes, NULL) < 0)
				return node_error(
					err, path, v,
					"bytes: expected a size like 8589934592 or 8GiB, got ",
					scalar(v) ? scalar(v) : "(not a scalar)");
		} else if (strcmp(key, "busbw_GBps") == 0) {
			rc = read_number(path, v, "busbw_GBps", &x->busbw_GBps, err);
			if (rc < 0)
				return rc;
		} else if (strcmp(key, "lat_us") == 0) {
			rc = read_number(path, v, "lat_us", &x->lat_us, err);
			if (rc < 0)
				return rc;
		} else {
			return node_error(
				err, path, k,
				"unknown field (expected test, bytes, busbw_GBps, lat_us): ", key);
		}
	}
	if (x->busbw_GBps <= 0 && x->lat_us <= 0)
		return node_error(err, path, m, "expected busbw_GBps or lat_us", NULL);
	return 0;
}

int
ft_diag_expectations_read(const char *path, struct ft_vec *out, struct ft_error *err)
{
	struct ft_strbuf sb;
	yaml_document_t doc;
	yaml_node_t *root, *list = NULL;
	yaml_node_item_t *it;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft__yaml_load(sb.buf, sb.len, path, &doc, err); /* limits, then the tree */
	if (rc < 0) {
		ft_strbuf_release(&sb);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = ft_error_set(err, FT_EPARSE, "%s: empty file, expected a list of expectations",
				  path);
		goto done;
	}
	if (root->type == YAML_SEQUENCE_NODE) {
		list = root;
	} else if (root->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;

		for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			const yaml_node_t *k = yaml_document_get_node(&doc, p->key);

			if (k && scalar(k) && strcmp(scalar(k), "expectations") == 0)
				list = yaml_document_get_node(&doc, p->value);
		}
	}
	if (!list || list->type != YAML_SEQUENCE_NODE) {
		rc = node_error(err, path, list ? list : root,
				"expected a list of {test, bytes, busbw_GBps, lat_us}", NULL);
		goto done;
	}
	rc = 0;
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		const yaml_node_t *m = yaml_document_get_node(&doc, *it);
		struct ft_expectation x;

		if (!m) {
			rc = ft_error_set(err, FT_EPARSE, "%s: malformed list", path);
			break;
		}
		rc = read_entry(path, &doc, m, &x, err);
		if (rc < 0)
			break;
		rc = ft_vec_push(out, &x);
		if (rc < 0) {
			ft_error_set(err, rc, "%s: out of memory", path);
			break;
		}
	}
done:
	yaml_document_delete(&doc);
	ft_strbuf_release(&sb);
	return rc;
}
