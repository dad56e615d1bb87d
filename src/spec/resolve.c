/* SPDX-License-Identifier: MIT */
/*
 * spec/resolve.c - what a user typed where a spec is expected: a node preset
 * ("dgx-h100", one node without a fabric), a preset with a node count
 * ("dgx-h100:64", the preset's default fabric sized for them), or a spec file.
 */
#include "internal.h"
#include "spec_int.h"

#include <fabtune/spec.h>

/* "dgx-a100, dgx-b200, ..." for messages, and "; did you mean 'dgx-h100'?" into @hint
 * when a preset is close to @name. */
static void
preset_list(const char *name, char *buf, size_t len, char *hint, size_t hint_len)
{
	const char *names[64], *near;
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ft_node_preset_count() && i < FT_ARRAY_SIZE(names); i++) {
		names[i] = ft_node_preset_name(i);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
			                         names[i]);
	}
	near = ft_name_closest(name, names, i);
	hint[0] = '\0';
	if (near)
		snprintf(hint, hint_len, "; did you mean '%s'?", near);
}

static int
resolve_preset(const char *arg, const char *name, const char *count, struct ft_cluster_spec *out,
               struct ft_error *err)
{
	char field[FT_SPEC_FIELD_MAX];
	struct ft_error e = { 0 };
	uint64_t n = 1;
	int rc;

	if (ft_node_preset(name, &out->node) < 0)
		return FT_ENOENT;
	if (count) {
		if (!*count || ft_parse_u64(count, &n) < 0)
			return ft_error_set(err, FT_EPARSE,
			                    "%s: expected a node count after ':', got '%s'", arg,
			                    count);
		/* the real upper bound is the fabric's, checked with it below (nodes.count) */
		if (n < 1)
			return ft_error_set(err, FT_ERANGE,
			                    "%s: expected a node count of at least 1, got %s", arg,
			                    count);
		if (n > UINT32_MAX)
			return ft_error_set(err, FT_ERANGE,
			                    "%s: expected a node count from 1 to %u, got %s", arg,
			                    UINT32_MAX, count);
	}
	ft_strlcpy(out->name, arg, sizeof(out->name));
	ft_strlcpy(out->source, arg, sizeof(out->source));
	out->nnodes = (uint32_t)n;
	if (count) {
		rc = ft__spec_default_fabric(&out->node, out->nnodes, &out->fabric, field, &e);
		if (rc < 0)
			return ft_error_set(err, rc, "%s: %s: %s", arg, field, e.msg);
	}
	return ft_spec_validate(out, err);
}

int
ft_spec_resolve(const char *arg, struct ft_cluster_spec *out, struct ft_error *err)
{
	char name[64], presets[256], hint[96];
	const char *colon;
	size_t len;
	int rc;

	if (!out)
		return ft_error_set(err, FT_EINVAL, "no spec to fill");
	memset(out, 0, sizeof(*out));
	if (!arg || !*arg)
		return ft_error_set(
		        err, FT_EINVAL,
		        "expected a spec file or a node preset (e.g. dgx-h100:64), got ''");
	colon = strrchr(arg, ':');
	len = colon ? (size_t)(colon - arg) : strlen(arg);
	if (len < sizeof(name)) {
		memcpy(name, arg, len);
		name[len] = '\0';
		rc = resolve_preset(arg, name, colon ? colon + 1 : NULL, out, err);
		if (rc != FT_ENOENT) {
			if (rc < 0)
				memset(out, 0, sizeof(*out));
			return rc;
		}
	}
	if (access(arg, F_OK) == 0 || strchr(arg, '/') || strchr(arg, '.'))
		return ft_spec_load_file(arg, out, err);
	preset_list(len < sizeof(name) ? name : arg, presets, sizeof(presets), hint, sizeof(hint));
	return ft_error_set(err, FT_ENOENT,
	                    "%s: expected a spec file or a node preset (%s), "
	                    "optionally with ':NODES', got neither%s",
	                    arg, presets, hint);
}
