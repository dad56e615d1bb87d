/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_names.c - every table of names a user may give, read the
 * one way (ft__name_read over a struct ft__name_set).
 *
 * For each set: every accepted name reads back as its own value (no two
 * names of a table squash alike), in any case and with '-' for '_'; every
 * alias reads as its value; a name past the accepted prefix and an unknown
 * name are refused with "LABEL: expected a, b or c, got 'x'", the accepted
 * names in table order, built here independently of the reader. The enums'
 * public _from_name() agree with their _name() getters. A last test reads
 * the tree for the sets it defines (FT__NAME_SET or a written-out
 * `const struct ft__name_set ft__...`) and fails on one this file does not
 * list, so a new table cannot escape these checks.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "internal.h"

extern const struct ft__name_set ft__coll_ops, ft__coll_modelled_ops, ft__coll_algos,
        ft__coll_protos, ft__source_names, ft__bench_binds, ft__bench_spins, ft__bench_table_styles,
        ft__bench_dtypes, ft__bench_dtype_options, ft__bench_redops, ft__bench_redop_options,
        ft__plan_recomputes, ft__plan_precisions, ft__plan_optimizers, ft__spec_routings,
        ft__spec_kinds, ft__report_formats, ft__archive_layers, ft__archive_severities,
        ft__scenario_placements;

#define SET(s)         \
	{              \
#s, &s \
	}
static const struct {
	const char *name;
	const struct ft__name_set *set;
} sets[] = {
	SET(ft__coll_ops),
	SET(ft__coll_modelled_ops),
	SET(ft__coll_algos),
	SET(ft__coll_protos),
	SET(ft__source_names),
	SET(ft__bench_binds),
	SET(ft__bench_spins),
	SET(ft__bench_table_styles),
	SET(ft__bench_dtypes),
	SET(ft__bench_dtype_options),
	SET(ft__bench_redops),
	SET(ft__bench_redop_options),
	SET(ft__plan_recomputes),
	SET(ft__plan_precisions),
	SET(ft__plan_optimizers),
	SET(ft__spec_routings),
	SET(ft__spec_kinds),
	SET(ft__report_formats),
	SET(ft__archive_layers),
	SET(ft__archive_severities),
	SET(ft__scenario_placements),
};
#undef SET

/* "--opt: expected a, b or c, got 'x'" for the first @n names of @set. */
static void
refusal(const struct ft__name_set *set, size_t n, const char *got, char *buf, size_t len)
{
	size_t i, used = (size_t)snprintf(buf, len, "--opt: expected ");

	for (i = 0; i < n; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		                         i == 0     ? "" :
		                         i + 1 == n ? " or " :
		                                      ", ",
		                         set->names[i]);
	snprintf(buf + used, len - used, ", got '%s'", got);
}

/* @s upper-cased, '_' as '-': a spelling the reader takes as @s. */
static void
respell(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = s[i] == '_' ? '-' : (char)toupper((unsigned char)s[i]);
	out[i] = '\0';
}

static void
test_every_set_round_trips(void **state)
{
	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(sets); k++) {
		const struct ft__name_set *set = sets[k].set;
		size_t naccept = set->naccept ? set->naccept : set->count;
		char want[512], other[64];

		print_message("# %s: %zu names, %zu accepted\n", sets[k].name, set->count, naccept);
		assert_true(set->count > 0 && naccept <= set->count);
		for (size_t i = 0; i < set->count; i++) {
			struct ft_error err = { 0 };
			int v = -1, rc;

			/* the lookup finds every name of the table as itself */
			assert_int_equal(ft__name_lookup(set, set->names[i], &v), 0);
			assert_int_equal(v, (int)i);
			respell(set->names[i], other, sizeof(other));
			assert_int_equal(ft__name_lookup(set, other, &v), 0);
			assert_int_equal(v, (int)i);
			rc = ft__name_read(set, "--opt", set->names[i], -1, &v, &err);
			if (i < naccept) {
				assert_int_equal(rc, 0);
				assert_int_equal(v, (int)i);
				continue;
			}
			assert_int_equal(rc, FT_EINVAL);
			refusal(set, naccept, set->names[i], want, sizeof(want));
			assert_string_equal(err.msg, want);
		}
		for (size_t i = 0; set->aliases && set->aliases[i].name; i++) {
			int v = -1;

			assert_true(set->aliases[i].value >= 0 &&
			            (size_t)set->aliases[i].value < set->count);
			assert_int_equal(ft__name_lookup(set, set->aliases[i].name, &v), 0);
			assert_int_equal(v, set->aliases[i].value);
		}
		{
			struct ft_error err = { 0 };
			int v = 12345;

			assert_int_equal(ft__name_read(set, "--opt", "no-such-name", -1, &v, &err),
			                 FT_EINVAL);
			assert_int_equal(v, 12345);
			refusal(set, naccept, "no-such-name", want, sizeof(want));
			assert_string_equal(err.msg, want);
		}
	}
}

/* The public readers take what the getters print, and refuse the rest. */
static void
test_from_name_matches_name(void **state)
{
	enum ft_dtype d;
	enum ft_redop r;
	enum ft_routing rt;
	enum ft_bench_table_style st;

/* Every value of an enum of @count values, through @name() and back through @from(). */
#define ROUND_TRIP(from, name, type, count)                    \
	for (int i = 0; i < (count); i++) {                    \
		type v_;                                       \
		assert_int_equal(from(name((type)i), &v_), 0); \
		assert_int_equal(v_, i);                       \
	}
	(void)state;
	ROUND_TRIP(ft_bench_bind_from_name, ft_bench_bind_name, enum ft_bench_bind,
	           FT_BENCH_BIND_COUNT);
	ROUND_TRIP(ft_bench_spin_from_name, ft_bench_spin_name, enum ft_bench_spin,
	           FT_BENCH_SPIN_COUNT);
	ROUND_TRIP(ft_dtype_from_name, ft_dtype_name, enum ft_dtype, FT_DTYPE_COUNT);
	ROUND_TRIP(ft_redop_from_name, ft_redop_name, enum ft_redop, FT_REDOP_COUNT);
	ROUND_TRIP(ft_plan_recompute_from_name, ft_plan_recompute_name, enum ft_plan_recompute,
	           FT_RECOMPUTE_COUNT);
	ROUND_TRIP(ft_routing_from_name, ft_routing_name, enum ft_routing, FT_ROUTING_COUNT);
	ROUND_TRIP(ft_source_from_name, ft_source_name, enum ft_source, FT_SOURCE_COUNT);
#undef ROUND_TRIP
	/* known aliases and spellings, and "all", which only the options take */
	assert_int_equal(ft_dtype_from_name("bf16", &d), 0);
	assert_int_equal(d, FT_DTYPE_BFLOAT16);
	assert_int_equal(ft_dtype_from_name("all", &d), FT_EINVAL);
	assert_int_equal(ft_redop_from_name("all", &r), FT_EINVAL);
	assert_int_equal(ft_routing_from_name("D-Mod-K", &rt), 0);
	assert_int_equal(rt, FT_ROUTING_DMODK);
	assert_int_equal(ft_routing_from_name("spray", &rt), FT_ENOENT);
	assert_int_equal(ft_bench_table_style_from_name("2.18", &st), 0);
	assert_int_equal(st, FT_BENCH_STYLE_218);
	assert_int_equal(ft_bench_table_style_from_name("2.17", &st), FT_EINVAL);
}

/* Every set the tree defines is one of sets[] above. */
static void
test_every_set_is_listed(void **state)
{
	char line[256];
	size_t nfound = 0;
	FILE *p;

	(void)state;
	p = popen("grep -rhoE '(FT__NAME_SET\\(|const struct ft__name_set )ft__[a-z0-9_]+' src",
	          "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *name = strstr(line, "ft__");
		bool listed = false;

		name = strstr(name + 4, "ft__") ? strstr(name + 4, "ft__") : name;
		line[strcspn(line, "\n")] = '\0';
		for (size_t k = 0; k < FT_ARRAY_SIZE(sets) && !listed; k++)
			listed = strcmp(name, sets[k].name) == 0;
		if (!listed)
			fail_msg("name set %s is not checked by tests/unit/test_names.c", name);
		nfound++;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(nfound >= FT_ARRAY_SIZE(sets));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_set_round_trips),
		cmocka_unit_test(test_from_name_matches_name),
		cmocka_unit_test(test_every_set_is_listed),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
