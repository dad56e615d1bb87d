/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_doc.c - the one document reader (spec/doc.c): every field
 * type read to its exact value, from YAML and from JSON; and every refusal
 * (bad value, out of range, unknown key with and without a near one, a list
 * where a mapping belongs, a key given twice, a missing required key, a
 * non-scalar key) with its exact message, place and code.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "internal.h"
#include "spec/doc.h"

struct inner {
	uint32_t x;
	bool y;
};

struct obj {
	char name[8];
	int mode;
	bool on;
	uint32_t count;
	uint64_t big;
	double ratio, share, rate_Bps, dt_s;
	uint64_t bytes;
	struct inner in;
	uint32_t nitems;
	uint32_t items[4];
	char note[16];
};

static const char *const modes[] = { "ring", "tree", "direct", NULL };

static const struct ft__doc_field inner_fields[] = {
	{ "x", FT__DOC_U32, FT__DOC_AT(struct inner, x), .lo = 1, .hi = 9, .required = true },
	{ "y", FT__DOC_BOOL, FT__DOC_AT(struct inner, y) },
};

static int
read_inner(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct obj *o = obj;
	uint64_t seen = 0;
	int rc = ft__doc_walk(d, v, path, inner_fields, FT_ARRAY_SIZE(inner_fields), &o->in, &seen);

	if (rc == 0)
		rc = ft__doc_check_required(d, v, path, inner_fields, FT_ARRAY_SIZE(inner_fields),
		                            seen, NULL);
	return rc;
}

/* A list of whole numbers from 0 to 99, each read by the same field entry. */
static int
read_items(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field item = { "item", FT__DOC_U32, 0, sizeof(uint32_t),
		                                   .lo = 0, .hi = 99 };
	struct obj *o = obj;
	yaml_node_item_t *it;
	char sub[FT__DOC_PATH_MAX];

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(d, v, path, "a list of numbers");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		if (o->nitems >= FT_ARRAY_SIZE(o->items))
			return ft__doc_fail(d, v, FT_ERANGE, path, "expected at most 4 items");
		snprintf(sub, sizeof(sub), "%s[%u]", path, o->nitems);
		if (ft__doc_read(d, &item, ft__doc_node(d, *it), sub, &o->items[o->nitems]) < 0)
			return FT_EPARSE;
		o->nitems++;
	}
	return 0;
}

static const struct ft__doc_field fields[] = {
	{ "name", FT__DOC_STR, FT__DOC_AT(struct obj, name), .required = true },
	{ "mode", FT__DOC_ENUM, FT__DOC_AT(struct obj, mode), .names = modes },
	{ "on", FT__DOC_BOOL, FT__DOC_AT(struct obj, on) },
	{ "count", FT__DOC_U32, FT__DOC_AT(struct obj, count), .lo = 1, .hi = 64 },
	{ "big", FT__DOC_U64, FT__DOC_AT(struct obj, big), .lo = 1 },
	{ "ratio", FT__DOC_DOUBLE, FT__DOC_AT(struct obj, ratio), .lo = 0, .hi = 10 },
	{ "share", FT__DOC_FRACTION, FT__DOC_AT(struct obj, share) },
	{ "bytes", FT__DOC_SIZE, FT__DOC_AT(struct obj, bytes) },
	{ "rate", FT__DOC_RATE, FT__DOC_AT(struct obj, rate_Bps) },
	{ "latency", FT__DOC_DURATION, FT__DOC_AT(struct obj, dt_s) },
	{ "inner", FT__DOC_FN, .fn = read_inner },
	{ "items", FT__DOC_FN, .fn = read_items },
	{ "description", FT__DOC_SKIP },
	{ "note", FT__DOC_STR, FT__DOC_AT(struct obj, note), .what = "a short note" },
};

/* Read @text as file "t.yaml" into @o: the walk, then the required keys. */
static int
load(const char *text, struct obj *o, struct ft_error *err)
{
	struct ft__doc d = { 0 };
	yaml_node_t *root;
	uint64_t seen = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	memset(err, 0, sizeof(*err));
	rc = ft__doc_open(&d, text, strlen(text), "t.yaml", err);
	if (rc < 0)
		return rc;
	root = ft__doc_root(&d);
	if (!root)
		rc = ft__doc_fail(&d, NULL, FT_EPARSE, NULL, "expected a mapping, got nothing");
	else
		rc = ft__doc_walk(&d, root, "", fields, FT_ARRAY_SIZE(fields), o, &seen);
	if (rc == 0)
		rc = ft__doc_check_required(&d, root, "", fields, FT_ARRAY_SIZE(fields), seen, NULL);
	ft__doc_close(&d);
	return rc;
}

static void
check_values(const struct obj *o)
{
	assert_string_equal(o->name, "h100");
	assert_int_equal(o->mode, 1); /* tree */
	assert_true(o->on);
	assert_int_equal(o->count, 64);
	assert_true(o->big == UINT64_C(18446744073709551615));
	assert_true(o->ratio == 2.5);
	assert_true(fabs(o->share - 0.85) < 1e-15);
	assert_true(o->bytes == 4096 * 1024); /* 4MiB */
	assert_true(o->rate_Bps == 50e9);     /* 400 Gb/s = 50 GB/s */
	assert_true(fabs(o->dt_s - 2e-6) < 1e-18);
	assert_int_equal(o->in.x, 3);
	assert_false(o->in.y);
	assert_int_equal(o->nitems, 3);
	assert_int_equal(o->items[0], 0);
	assert_int_equal(o->items[2], 99);
}

static void
test_types_yaml(void **state)
{
	static const char text[] = "name: h100\n"
	                           "mode: tree\n"
	                           "on: yes\n"
	                           "count: 64\n"
	                           "big: 18446744073709551615\n"
	                           "ratio: 2.5\n"
	                           "share: 85%\n"
	                           "bytes: 4MiB\n"
	                           "rate: 400Gbps\n"
	                           "latency: 2us\n"
	                           "description: [anything, {at: all}]\n"
	                           "inner:\n"
	                           "  x: 3\n"
	                           "  y: False\n"
	                           "items: [0, 7, 99]\n";
	struct ft_error err;
	struct obj o;

	(void)state;
	assert_int_equal(load(text, &o, &err), 0);
	check_values(&o);
	/* a fraction written as one */
	assert_int_equal(load("name: a\nshare: 0.25\n", &o, &err), 0);
	assert_true(o.share == 0.25);
	assert_int_equal(load("name: a\nshare: 100%\non: TRUE\n", &o, &err), 0);
	assert_true(o.share == 1 && o.on);
}

/* JSON, as the readers accept it: the same values through libyaml's flow style. */
static void
test_types_json(void **state)
{
	static const char text[] =
	        "{\"name\": \"h100\", \"mode\": \"tree\", \"on\": true, \"count\": 64,\n"
	        " \"big\": 18446744073709551615, \"ratio\": 2.5, \"share\": \"85%\",\n"
	        " \"bytes\": \"4MiB\", \"rate\": \"400Gbps\", \"latency\": \"2us\",\n"
	        " \"inner\": {\"x\": 3, \"y\": false}, \"items\": [0, 7, 99],\n"
	        " \"description\": null}\n";
	struct ft_error err;
	struct obj o;

	(void)state;
	assert_int_equal(load(text, &o, &err), 0);
	check_values(&o);
	/* a JSON error names its line and column too */
	assert_int_equal(load("{\"name\": \"a\",\n \"count\": 65}", &o, &err), FT_ERANGE);
	assert_string_equal(err.msg, "t.yaml:2:11: count: expected an integer from 1 to 64, got '65'");
}

static void
test_bad_values(void **state)
{
	static const struct {
		const char *text;
		int code;
		const char *msg;
	} cases[] = {
		{ "name: ''\n", FT_EPARSE, "t.yaml:1:7: name: expected a name, got ''" },
		{ "name: ~\n", FT_EPARSE, "t.yaml:1:7: name: expected a name, got nothing" },
		{ "name: abcdefgh\n", FT_ERANGE,
		  "t.yaml:1:7: name: expected a name of at most 7 characters, got 'abcdefgh'" },
		{ "name: [a]\n", FT_EPARSE, "t.yaml:1:7: name: expected a name, got a list" },
		{ "name: a\nmode: star\n", FT_EPARSE,
		  "t.yaml:2:7: mode: expected ring, tree or direct, got 'star'" },
		{ "name: a\non: maybe\n", FT_EPARSE,
		  "t.yaml:2:5: on: expected true or false, got 'maybe'" },
		{ "name: a\ncount: x\n", FT_EPARSE,
		  "t.yaml:2:8: count: expected an integer from 1 to 64, got 'x'" },
		{ "name: a\ncount: -1\n", FT_EPARSE,
		  "t.yaml:2:8: count: expected an integer from 1 to 64, got '-1'" },
		{ "name: a\ncount: 0\n", FT_ERANGE, "t.yaml:2:8: count: expected an integer from 1 to 64, got '0'" },
		{ "name: a\ncount: 4294967296\n", FT_ERANGE,
		  "t.yaml:2:8: count: expected an integer from 1 to 64, got '4294967296'" },
		{ "name: a\ncount: {a: 1}\n", FT_EPARSE,
		  "t.yaml:2:8: count: expected an integer from 1 to 64, got a mapping" },
		{ "name: a\nbig: 0\n", FT_ERANGE, "t.yaml:2:6: big: expected an integer of at least 1, got '0'" },
		{ "name: a\nbig: 18446744073709551616\n", FT_EPARSE,
		  "t.yaml:2:6: big: expected an integer of at least 1, got '18446744073709551616'" },
		{ "name: a\nratio: 10.5\n", FT_ERANGE,
		  "t.yaml:2:8: ratio: expected a number from 0 to 10, got '10.5'" },
		{ "name: a\nratio: nan\n", FT_EPARSE,
		  "t.yaml:2:8: ratio: expected a number from 0 to 10, got 'nan'" },
		{ "name: a\nratio:\n", FT_EPARSE, "t.yaml:2:7: ratio: expected a number from 0 to 10, got nothing" },
		{ "name: a\nshare: 150%\n", FT_ERANGE,
		  "t.yaml:2:8: share: a fraction cannot exceed 1 (100%), got '150%'" },
		{ "name: a\nshare: -0.1\n", FT_EPARSE,
		  "t.yaml:2:8: share: expected a fraction like 0.85 or 85%, got '-0.1'" },
		{ "name: a\nbytes: 4XB\n", FT_EPARSE,
		  "t.yaml:2:8: bytes: expected a size like 200MB or 4KiB, got '4XB'" },
		{ "name: a\nrate: 0Gbps\n", FT_EPARSE,
		  "t.yaml:2:7: rate: expected a rate like 400Gbps or 50GB/s, got '0Gbps'" },
		{ "name: a\nlatency: -2us\n", FT_EPARSE,
		  "t.yaml:2:10: latency: expected a duration like 20ms, got '-2us'" },
		{ "name: a\nnote: a note much too long\n", FT_ERANGE,
		  "t.yaml:2:7: note: expected a short note of at most 15 characters, got 'a note "
		  "much too long'" },
		/* a long value is cut at 40 characters */
		{ "name: a\nmode: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\n", FT_EPARSE,
		  "t.yaml:2:7: mode: expected ring, tree or direct, got "
		  "'abcdefghijklmnopqrstuvwxyzabcdefghijk...'" },
	};
	struct ft_error err;
	struct obj o;
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		int rc = load(cases[i].text, &o, &err);

		if (rc != cases[i].code || strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("case %zu: got %d '%s', want %d '%s'", i, rc, err.msg,
			         cases[i].code, cases[i].msg);
	}
}

static void
test_structure(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		/* unknown keys, with the closest known key when one is near */
		{ "name: a\ncuont: 3\n",
		  "t.yaml:2:1: cuont: unknown key (did you mean 'count'? expected one of: name, "
		  "mode, on, count, big, ratio, share, bytes, rate, latency, inner, items, "
		  "description, note)" },
		{ "name: a\nlatnecy: 2us\n",
		  "t.yaml:2:1: latnecy: unknown key (did you mean 'latency'? expected one of: name, "
		  "mode, on, count, big, ratio, share, bytes, rate, latency, inner, items, "
		  "description, note)" },
		{ "name: a\nzzzzzz: 3\n",
		  "t.yaml:2:1: zzzzzz: unknown key (expected one of: name, mode, on, count, big, "
		  "ratio, share, bytes, rate, latency, inner, items, description, note)" },
		{ "name: a\ninner:\n  x: 1\n  z: 2\n",
		  "t.yaml:4:3: inner.z: unknown key (did you mean 'x'? expected one of: x, y)" },
		/* a list where a mapping belongs, at the top and nested */
		{ "- name: a\n", "t.yaml:1:1: expected a mapping, got a list" },
		{ "name: a\ninner: [1, 2]\n", "t.yaml:2:8: inner: expected a mapping, got a list" },
		{ "name: a\ninner: 7\n", "t.yaml:2:8: inner: expected a mapping, got '7'" },
		/* a mapping where a list belongs, and a bad item named by its index */
		{ "name: a\nitems: {a: 1}\n",
		  "t.yaml:2:8: items: expected a list of numbers, got a mapping" },
		{ "name: a\nitems:\n  - 1\n  - 100\n",
		  "t.yaml:4:5: items[1]: expected an integer from 0 to 99, got '100'" },
		/* the same key twice */
		{ "name: a\ncount: 1\ncount: 2\n",
		  "t.yaml:3:1: count: expected each key once, got 'count' again (first at line 2)" },
		{ "name: a\ninner: {x: 1, y: true, x: 2}\n",
		  "t.yaml:2:24: inner.x: expected each key once, got 'x' again (first at line 2)" },
		/* required keys */
		{ "count: 3\n", "t.yaml:1:1: name: required" },
		{ "name: a\ninner:\n  y: true\n", "t.yaml:3:3: inner.x: required" },
		/* a key that is not a name */
		{ "name: a\n[1, 2]: 3\n", "t.yaml:2:1: expected a key name, got a list" },
		/* an empty document */
		{ "", "t.yaml:1:1: expected a mapping, got nothing" },
		{ "# only a comment\n", "t.yaml:1:1: expected a mapping, got nothing" },
	};
	struct ft_error err;
	struct obj o;
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		int rc = load(cases[i].text, &o, &err);

		if (rc != FT_EPARSE || strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("case %zu: got %d '%s', want '%s'", i, rc, err.msg, cases[i].msg);
	}
}

/* Syntax errors and limits come from ft__yaml_load, named the same way. */
static void
test_open(void **state)
{
	struct ft_error err = { 0 };
	struct ft__doc d = { 0 };
	struct obj o;

	(void)state;
	assert_int_equal(load("name: a\ncount: [1, 2\n", &o, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, "t.yaml:"));
	memset(&err, 0, sizeof(err));
	assert_true(ft__doc_open_file(&d, "tests/unit/no-such-file.yaml", &err) < 0);
	assert_non_null(strstr(err.msg, "no-such-file.yaml"));
	ft__doc_close(&d); /* safe after a failed open */
	assert_null(ft__doc_root(&d));
}

static void
test_closest(void **state)
{
	static const char *const known[] = { "name", "count", "description", "utilisation_min",
		                             "pause_frames_max" };
	size_t n = FT_ARRAY_SIZE(known);

	(void)state;
	assert_null(ft_name_closest("count", known, 0));
	assert_string_equal(ft_name_closest("cuont", known, n), "count");   /* a swap */
	assert_string_equal(ft_name_closest("nmae", known, n), "name");     /* a swap */
	assert_string_equal(ft_name_closest("counts", known, n), "count");  /* one more */
	assert_string_equal(ft_name_closest("descriptoin", known, n), "description");
	/* the start of a longer key, misspelled */
	assert_string_equal(ft_name_closest("utilization", known, n), "utilisation_min");
	assert_string_equal(ft_name_closest("pause_max", known, n), "pause_frames_max");
	/* capitals are no edits */
	assert_string_equal(ft_name_closest("NAME", known, n), "name");
	assert_string_equal(ft_name_closest("Pause_Max", known, n), "pause_frames_max");
	assert_null(ft_name_closest("routing", known, n));
	assert_null(ft_name_closest("x", known, n));
}

/* A strict document (cluster specs): numbers and booleans unquoted, booleans true/false. */
static void
test_strict(void **state)
{
	static const struct {
		const char *text;
		int code;
		const char *msg;
	} cases[] = {
		{ "count: \"4\"\n", FT_EPARSE,
		  "t.yaml:1:8: count: expected an integer from 1 to 64, got '4'" },
		{ "ratio: '2'\n", FT_EPARSE, "t.yaml:1:8: ratio: expected a number from 0 to 10, got '2'" },
		{ "on: yes\n", FT_EPARSE, "t.yaml:1:5: on: expected true or false, got 'yes'" },
		{ "on: \"true\"\n", FT_EPARSE, "t.yaml:1:5: on: expected true or false, got 'true'" },
		{ "count: 4\non: false\nname: \"4\"\n", 0, "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_error err = { 0 };
		struct ft__doc d = { 0 };
		struct obj o;
		int rc;

		memset(&o, 0, sizeof(o));
		assert_int_equal(ft__doc_open(&d, cases[i].text, strlen(cases[i].text), "t.yaml", &err),
		                 0);
		d.strict = true;
		rc = ft__doc_walk(&d, ft__doc_root(&d), "", fields, FT_ARRAY_SIZE(fields), &o, NULL);
		ft__doc_close(&d);
		if (rc != cases[i].code || strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("case %zu: got %d '%s', want %d '%s'", i, rc, err.msg,
			         cases[i].code, cases[i].msg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_yaml),   cmocka_unit_test(test_types_json),
		cmocka_unit_test(test_bad_values),   cmocka_unit_test(test_structure),
		cmocka_unit_test(test_open),         cmocka_unit_test(test_closest),
		cmocka_unit_test(test_strict),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
