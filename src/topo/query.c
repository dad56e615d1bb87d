/* SPDX-License-Identifier: MIT */
/*
 * topo/query.c - what the command line asks of a topology: its summary,
 * its export as Graphviz dot or JSON, or the route between two vertices.
 */
#include "topo_int.h"

#include <inttypes.h>
#include <string.h>

#include <fabtune/progress.h>

int
ft_topo_query_check(const struct ft_topo_query *q, struct ft_error *err)
{
	const char *format = q->format ? q->format : "text";
	enum ft_routing r;

	if (strcmp(format, "text") != 0 && strcmp(format, "dot") != 0 &&
	    strcmp(format, "json") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "--format: expected text, dot or json, got '%s'", format);
	if (q->path && strcmp(format, "text") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "--path prints a route: it takes no --format %s", format);
	if ((q->routing || q->qp) && !q->path)
		return ft_error_set(err, FT_EINVAL, "--routing and --qp apply to --path");
	if (q->qp > UINT32_MAX)
		return ft_error_set(err, FT_EINVAL, "--qp: expected 0..%u, got %" PRIu64,
		                    UINT32_MAX, q->qp);
	if (q->routing)
		return ft_routing_from_arg("--routing", q->routing, &r, err);
	return 0;
}

/* "SRC,DST" into two vertex ids; FT_EINVAL saying what is wrong. */
static int
path_ends(const struct ft_topo *t, const char *arg, uint32_t *src, uint32_t *dst,
          struct ft_error *err)
{
	const char *comma = strchr(arg, ',');
	char name[64];
	size_t len;

	if (!comma)
		return ft_error_set(err, FT_EINVAL,
		                    "--path: expected SRC,DST (e.g. n0.gpu0,n1.gpu3), got '%s'",
		                    arg);
	len = FT_MIN((size_t)(comma - arg), sizeof(name) - 1);
	memcpy(name, arg, len);
	name[len] = '\0';
	for (int k = 0; k < 2; k++) {
		const char *nm = k == 0 ? name : comma + 1;
		int rc = ft_topo_vertex_find(t, nm, k == 0 ? src : dst);

		if (rc == FT_EPARSE)
			return ft_error_set(
			        err, FT_EINVAL,
			        "--path: expected a vertex like n0.gpu3, n1.nic0, n0.pcie1, "
			        "n0.cpu0 or n0.nvswitch, got '%s'",
			        nm);
		if (rc < 0)
			return ft_error_set(err, FT_EINVAL, "--path: %s: no such vertex in %s", nm,
			                    ft_topo_spec(t)->name);
	}
	return 0;
}

/* The summary, with the build's seconds in the JSON (unless stable). */
static int
write_summary(const struct ft_topo_query *q, const struct ft_topo *t, double build_s,
              struct ft_strbuf *sb, struct ft_error *err)
{
	struct ft_topo_stats st;
	int rc = ft_topo_stats(t, &st, err);

	if (rc == 0 && q->json)
		ft_topo_stats_write_json(t, &st, q->stable ? -1 : build_s, sb);
	else if (rc == 0)
		rc = ft_topo_stats_write_text(t, &st, sb);
	return rc;
}

int
ft_topo_query_write(const struct ft_topo_query *q, const struct ft_cluster_spec *spec,
                    const char *label, struct ft_strbuf *sb, struct ft_error *err)
{
	const char *format = q->format ? q->format : "text";
	enum ft_routing routing = spec->fabric.routing;
	struct ft_topo *t = NULL;
	uint32_t src, dst;
	double t0, build_s;
	int rc = ft_topo_query_check(q, err);

	if (rc < 0)
		return rc;
	if (q->routing)
		(void)ft_routing_from_name(q->routing, &routing); /* checked above */
	if (q->path && routing == FT_ROUTING_MINHOP && ft__route_minhop_unfit(spec))
		return ft_error_set(err, FT_EINVAL, "--routing: %s", ft__route_minhop_unfit(spec));
	t0 = ft_now_s();
	rc = ft_topo_build(spec, &t, err);
	build_s = ft_now_s() - t0;
	if (rc < 0) {
		ft_error_prefix(err, "%s: ", label);
		return rc;
	}
	if (q->path) {
		rc = path_ends(t, q->path, &src, &dst, err);
		if (rc == 0)
			rc = ft_topo_path_write(t, label, src, dst, routing, (uint32_t)q->qp,
			                        q->json, sb, err);
	} else if (strcmp(format, "dot") == 0) {
		rc = ft_topo_export_dot(t, sb);
	} else if (strcmp(format, "json") == 0) {
		rc = ft_topo_export_json(t, sb);
	} else {
		rc = write_summary(q, t, build_s, sb, err);
	}
	if (rc == 0 && sb->oom)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	ft_topo_free(t);
	return rc;
}
