/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_base.c - errors, allocation, arenas, vectors, string
 * buffers, units, the RNG, the JSON writer and tables.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "internal.h"
#include "base/fields.h"
#include "base/alloc_int.h"
#include "base/recset_int.h"
#include "base/childwait_int.h"

static void
test_error_first_wins(void **state)
{
	struct ft_error err = { 0 };

	assert_int_equal(ft_error_set(&err, FT_EPARSE, "a.yaml:3:7: rate: bad"), FT_EPARSE);
	assert_int_equal(ft_error_set(&err, FT_EINVAL, "second"), FT_EINVAL);
	assert_int_equal(err.code, FT_EPARSE);
	assert_string_equal(err.msg, "a.yaml:3:7: rate: bad");
	ft_error_prefix(&err, "spec %s: ", "x");
	assert_string_equal(err.msg, "spec x: a.yaml:3:7: rate: bad");
	assert_string_equal(ft_err_name(FT_EPARSE), "EPARSE");
	assert_string_equal(ft_strerror(FT_ENOMEM), "out of memory");
	assert_int_equal(FT_EINVAL, -1);
	assert_int_equal(ft_error_set(NULL, FT_EIO, "x"), FT_EIO);
}

static void
test_arena(void **state)
{
	struct ft_arena a;
	size_t i;

	ft_arena_init(&a, 128);
	for (i = 0; i < 1000; i++) {
		uint64_t *p = FT_ARENA_NEW(&a, uint64_t);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % _Alignof(uint64_t), 0);
		assert_int_equal(*p, 0);
		*p = i;
	}
	assert_string_equal(ft_arena_strdup(&a, "hello"), "hello");
	assert_non_null(ft_arena_alloc(&a, 10000, 64));
	ft_arena_release(&a);
}

static void
test_vec(void **state)
{
	struct ft_vec v;
	int i;

	ft_vec_init(&v, sizeof(int));
	for (i = 0; i < 100; i++)
		assert_int_equal(ft_vec_push(&v, &i), 0);
	assert_int_equal(v.len, 100);
	assert_int_equal(FT_VEC_AT(&v, int, 57), 57);
	ft_vec_release(&v);
	assert_null(v.data);
}

/*
 * The one lookup behind the enums' _from_name() and the option readers: case,
 * '_', '-' and spaces aside, first match, aliases; FT_EINVAL for an absent
 * name or NULL. The reader refuses a name past the accepted prefix and lists
 * the accepted ones (every table of the tree: tests/unit/test_names.c).
 */
static void
test_name_index(void **state)
{
	static const char *const names[] = { "auto", "none", "core", "fat-tree", "none" };
	static const struct ft__name_alias aliases[] = { { "cores", 2 }, { NULL, 0 } };
	const struct ft__name_set set = { names, 5, 3, aliases };
	struct ft_error err = { 0 };
	enum ft_source src;
	double t0, t1;
	int v = -1;

	(void)state;
	assert_int_equal(ft__name_lookup(&set, "auto", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ft__name_lookup(&set, "Core", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(ft__name_lookup(&set, "FAT_TREE", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(ft__name_lookup(&set, "none", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(ft__name_lookup(&set, "cores", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(ft__name_lookup(&set, "numa", &v), FT_EINVAL);
	assert_int_equal(ft__name_lookup(&set, NULL, &v), FT_EINVAL);
	assert_int_equal(ft__name_read(&set, "--x", "fat-tree", -1, &v, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--x: expected auto, none or core, got 'fat-tree'");
	assert_int_equal(ft__name_read(&set, "--x", "auto", 1, &v, &err), 0);
	assert_int_equal(v, 1);
	/* every source name comes back as its value */
	for (int i = 0; i < FT_SOURCE_COUNT; i++) {
		assert_int_equal(ft_source_from_name(ft_source_name((enum ft_source)i), &src), 0);
		assert_int_equal(src, i);
	}
	assert_int_equal(ft_source_from_name("simulated", &src), FT_EINVAL);
	/* the monotonic clock never goes back; the wall clock is after 2020 */
	t0 = ft__clock_s(CLOCK_MONOTONIC);
	t1 = ft_now_s();
	assert_true(t1 >= t0);
	assert_true(ft_wall_s() > 1577836800.0);
}

static void
test_strbuf(void **state)
{
	struct ft_strbuf sb;
	char *p;
	size_t len;
	uint64_t u;
	double d;

	ft_strbuf_init(&sb);
	assert_string_equal(sb.buf, "");
	ft_strbuf_addf(&sb, "%d-%s", 42, "x");
	ft_strbuf_addch(&sb, '!');
	ft_strbuf_addchars(&sb, '.', 3);
	assert_string_equal(sb.buf, "42-x!...");
	p = ft_strbuf_detach(&sb, &len);
	assert_int_equal(len, 8);
	assert_string_equal(p, "42-x!...");
	ft_free(p);
	assert_int_equal(ft_parse_u64("123", &u), 0);
	assert_int_equal(u, 123);
	assert_true(ft_parse_u64("-1", &u) < 0);
	assert_true(ft_parse_u64("12x", &u) < 0);
	assert_true(ft_parse_u64("", &u) < 0);
	assert_int_equal(ft_parse_double("2.5", &d), 0);
	assert_true(ft_parse_double("nan", &d) < 0);
}

static void
test_sizes(void **state)
{
	static const struct {
		const char *text;
		uint64_t bytes;
		const char *printed;
	} cases[] = {
		{ "8", 8, "8B" },
		{ "4KiB", 4096, "4KiB" },
		{ "4K", 4096, "4KiB" },
		{ "256M", 268435456, "256MiB" },
		{ "8G", 8589934592ULL, "8GiB" },
		{ "1GB", 1000000000, "1000000000B" },
		{ "1.5K", 1536, "1536B" },
		{ "1T", 1099511627776ULL, "1TiB" },
	};
	struct ft_error err = { 0 };
	char buf[32];
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		uint64_t b = 0, again = 0;

		assert_int_equal(ft_parse_size(cases[i].text, &b, &err), 0);
		assert_int_equal(b, cases[i].bytes);
		ft_format_size(b, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].printed);
		assert_int_equal(ft_parse_size(buf, &again, &err), 0);
		assert_int_equal(again, b);
	}
	assert_int_equal(ft_parse_size("12Q", &(uint64_t){ 0 }, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, "'12Q'"));
	ft_error_clear(&err);
	assert_int_equal(ft_parse_size("-1K", &(uint64_t){ 0 }, &err), FT_EPARSE);
	ft_error_clear(&err);
	assert_int_equal(ft_parse_size("0.3", &(uint64_t){ 0 }, &err), FT_EPARSE);
	ft_error_clear(&err);
	assert_int_equal(ft_parse_size("99999999T", &(uint64_t){ 0 }, &err), FT_ERANGE);
}

/* A count of bytes in words: singular for one, plural otherwise, the number exact. */
static void
test_nbytes(void **state)
{
	char buf[48];

	(void)state;
	assert_string_equal(ft_format_nbytes(1, buf, sizeof(buf)), "1 byte");
	assert_string_equal(ft_format_nbytes(0, buf, sizeof(buf)), "0 bytes");
	assert_string_equal(ft_format_nbytes(2, buf, sizeof(buf)), "2 bytes");
	assert_string_equal(ft_format_nbytes(67108864, buf, sizeof(buf)), "67108864 bytes");
	assert_string_equal(ft_format_nbytes(UINT64_MAX, buf, sizeof(buf)),
	                    "18446744073709551615 bytes");
}

/* The input limit's message counts in words too: a limit of one byte is "1 byte". */
static void
test_input_limit_one_byte(void **state)
{
	char path[] = "/tmp/ft-test-limit-XXXXXX";
	struct ft_strbuf sb;
	struct ft_error err = { 0 };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ab", 2), 2);
	close(fd);
	setenv("FABTUNE_MAX_INPUT", "1", 1);
	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, path, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, ": file of 2 bytes is larger than the input limit of 1 "
	                                "byte (FABTUNE_MAX_INPUT)"));
	unsetenv("FABTUNE_MAX_INPUT");
	ft_strbuf_release(&sb);
	unlink(path);
}

/*
 * nccl-tests' table pieces (base/nccl_table.c): the classic row's time takes
 * 2, 1 or 0 decimals by magnitude, a NaN time and an unchecked #wrong print
 * "N/A"; 2.18's fits each number to its column; the foot's verdict follows
 * one blank, there when empty too.
 */
static void
test_nccl_table(void **state)
{
	struct ft_result_row r;
	struct ft_strbuf sb;

	(void)state;
	ft_result_row_init(&r);
	r.bytes = 1048576;
	r.count = 262144;
	ft_strlcpy(r.dtype, "float", sizeof(r.dtype));
	ft_strlcpy(r.redop, "sum", sizeof(r.redop));
	r.time_us = 156.44;
	r.algbw_GBps = 6.70;
	r.busbw_GBps = 12.57;
	r.ip_time_us = 16035.2;
	r.ip_algbw_GBps = 65.39;
	r.ip_busbw_GBps = 122.6;
	ft_strbuf_init(&sb);
	ft_nccl_table_row(&sb, &r, FT_NCCL_TABLE_CLASSIC);
	assert_string_equal(sb.buf, "     1048576        262144     float     sum      -1    156.4"
	                            "    6.70   12.57    N/A    16035   65.39  122.60    N/A\n");
	ft_strbuf_reset(&sb);
	r.wrong = 0;
	r.ip_time_us = NAN;
	r.ip_busbw_GBps = 1234.5;
	ft_nccl_table_row(&sb, &r, FT_NCCL_TABLE_218);
	assert_string_equal(sb.buf, "     1048576        262144     float     sum      -1   156.44"
	                            "    6.70   12.57       0      N/A   65.39  1234.5       0\n");
	ft_strbuf_reset(&sb);
	ft_nccl_table_foot(&sb, 0, 12.5, "");
	assert_string_equal(sb.buf, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.5 \n#\n");
	ft_strbuf_reset(&sb);
	ft_nccl_table_foot(&sb, 3, 12.5, "FAILED");
	assert_string_equal(sb.buf,
	                    "# Out of bounds values : 3 FAILED\n# Avg bus bandwidth    : 12.5 FAILED\n#\n");
	ft_strbuf_release(&sb);
}

static void
test_rates(void **state)
{
	struct ft_error err = { 0 };
	char buf[32];
	double r = 0, again = 0;

	assert_int_equal(ft_parse_rate("400Gbps", &r, &err), 0);
	assert_true(r == 50e9);
	assert_int_equal(ft_parse_rate("400Gb/s", &r, &err), 0);
	assert_true(r == 50e9);
	assert_int_equal(ft_parse_rate("50GB/s", &r, &err), 0);
	assert_true(r == 50e9);
	assert_int_equal(ft_parse_rate("25GBps", &r, &err), 0);
	assert_true(r == 25e9);
	assert_string_equal(ft_format_rate_bits(50e9, buf, sizeof(buf)), "400Gbps");
	assert_int_equal(ft_parse_rate(buf, &again, &err), 0);
	assert_true(again == 50e9);
	assert_string_equal(ft_format_rate_bytes(50e9, buf, sizeof(buf)), "50GB/s");
	assert_string_equal(ft_format_rate_bits(12.5e9, buf, sizeof(buf)), "100Gbps");
	assert_string_equal(ft_format_rate_bits(1e12 / 8 * 1.6, buf, sizeof(buf)), "1.6Tbps");
	assert_int_equal(ft_parse_rate("fast", &r, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, "400Gbps"));
}

static void
test_durations(void **state)
{
	struct ft_error err = { 0 };
	char buf[32];
	double s = 0, again = 0;

	assert_int_equal(ft_parse_duration("2us", &s, &err), 0);
	assert_true(fabs(s - 2e-6) < 1e-18);
	assert_string_equal(ft_format_duration(s, buf, sizeof(buf)), "2us");
	assert_int_equal(ft_parse_duration(buf, &again, &err), 0);
	assert_true(again == s);
	assert_int_equal(ft_parse_duration("1.5ms", &s, &err), 0);
	assert_string_equal(ft_format_duration(s, buf, sizeof(buf)), "1.5ms");
	assert_int_equal(ft_parse_duration("30s", &s, &err), 0);
	assert_true(s == 30);
	assert_string_equal(ft_format_duration(100e-9, buf, sizeof(buf)), "100ns");
	assert_int_equal(ft_s_to_ps(1.5e-6), 1500000);
	assert_true(ft_ps_to_s(2000000) == 2e-6);
	assert_int_equal(ft_parse_duration("2 fortnights", &s, &err), FT_EPARSE);
}

static void
test_rng_pinned(void **state)
{
	struct ft_rng r, r2;
	uint64_t first;
	int hist[10] = { 0 };
	int i;

	/* Pinned: a change to the generator must be deliberate. */
	ft_rng_seed(&r, 1, 0);
	first = ft_rng_u64(&r);
	ft_rng_seed(&r2, 1, 0);
	assert_int_equal(ft_rng_u64(&r2), first);
	assert_int_equal(first, 0xc0644693e512d4bcULL);
	/* The reference xoshiro256** from state {1, 2, 3, 4}. */
	r2.s[0] = 1;
	r2.s[1] = 2;
	r2.s[2] = 3;
	r2.s[3] = 4;
	assert_int_equal(ft_rng_u64(&r2), 11520);
	assert_int_equal(ft_rng_u64(&r2), 0);
	assert_int_equal(ft_rng_u64(&r2), 1509978240);
	assert_int_equal(ft_rng_u64(&r2), 1215971899390074240ULL);
	ft_rng_seed(&r2, 1, 1);
	assert_true(ft_rng_u64(&r2) != first);
	ft_rng_seed(&r, 7, ft_rng_stream(3, 9));
	for (i = 0; i < 100000; i++) {
		uint64_t b = ft_rng_below(&r, 10);

		assert_true(b < 10);
		hist[b]++;
	}
	for (i = 0; i < 10; i++)
		assert_true(hist[i] > 9500 && hist[i] < 10500);
	for (i = 0; i < 1000; i++) {
		double u = ft_rng_unit(&r);

		assert_true(u >= 0 && u < 1);
	}
}

static void
test_shuffle_is_permutation(void **state)
{
	struct ft_rng r;
	uint32_t v[64];
	int seen[64] = { 0 };
	uint32_t i;

	for (i = 0; i < 64; i++)
		v[i] = i;
	ft_rng_seed(&r, 5, 0);
	ft_rng_shuffle_u32(&r, v, 64);
	for (i = 0; i < 64; i++)
		seen[v[i]]++;
	for (i = 0; i < 64; i++)
		assert_int_equal(seen[i], 1);
}

/* JSON strings are valid UTF-8 whatever the input bytes: known values. */
static void
test_json_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9" },                   /* valid 2-byte: kept */
		{ "\xe2\x82\xac 5", "\xe2\x82\xac 5" },           /* valid 3-byte: kept */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },     /* valid 4-byte: kept */
		{ "caf\xe9", "caf\xef\xbf\xbd" },                   /* Latin-1 byte */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },     /* overlong '/' */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },     /* cut sequence */
		{ "\x1b[31m", "\\u001b[31m" },                       /* escape: escaped */
	};
	struct ft_strbuf sb;
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		ft_strbuf_init(&sb);
		ft_json_escape(&sb, cases[i].in, strlen(cases[i].in));
		assert_string_equal(sb.buf, cases[i].out);
		ft_strbuf_release(&sb);
	}
	assert_int_equal(ft_utf8_seq_len("\xc3\xa9", 2), 2);
	assert_int_equal(ft_utf8_seq_len("\xc3\xa9", 1), 0);
	assert_int_equal(ft_utf8_seq_len("\x80", 1), 0);
	assert_int_equal(ft_utf8_seq_len("\xf5\x80\x80\x80", 4), 0);
}

/*
 * Text for a terminal: control characters and non-UTF-8 bytes made visible; the same
 * text written piece by piece from ft_printable_piece() (which allocates nothing, for
 * a message out of memory) into a fixed buffer.
 */
static void
test_printable(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain text\tand\n", "plain text\tand\n" },
		{ "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m" },
		{ "bell\x07 del\x7f", "bell\\x07 del\\x7f" },
		{ "csv\r\nline\rover", "csv\r\nline\\x0dover" },
		{ "caf\xc3\xa9 caf\xe9", "caf\xc3\xa9 caf\\xe9" },
		{ "csi\xc2\x9b" "2J nbsp\xc2\xa0", "csi\\u009b" "2J nbsp\xc2\xa0" },
		{ "raw csi \x9b", "raw csi \\x9b" },
		{ "cut \xc2", "cut \\xc2" },
		{ "nel\xc2\x85 cr at end\r", "nel\\u0085 cr at end\\x0d" },
	};
	struct ft_strbuf sb;
	char esc[FT_PRINTABLE_ESC], out[128];
	size_t i, j, k, n, len;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		ft_strbuf_init(&sb);
		ft_strbuf_add_printable(&sb, cases[i].in, strlen(cases[i].in));
		assert_string_equal(sb.buf, cases[i].out);
		ft_strbuf_release(&sb);
		n = strlen(cases[i].in);
		for (j = 0, len = 0; j < n; j += k) {
			k = ft_printable_piece(cases[i].in + j, n - j, esc);
			assert_true(k >= 1 && k <= n - j);
			if (esc[0])
				len += (size_t)snprintf(out + len, sizeof(out) - len, "%s", esc);
			else
				len += (size_t)snprintf(out + len, sizeof(out) - len, "%.*s", (int)k,
				                        cases[i].in + j);
			assert_true(len < sizeof(out));
		}
		out[len] = '\0';
		assert_string_equal(out, cases[i].out);
	}
	/* a piece: a UTF-8 sequence whole, a C1 control's two bytes, nothing of nothing */
	assert_int_equal(ft_printable_piece("\xe2\x82\xac", 3, esc), 3);
	assert_string_equal(esc, "");
	assert_int_equal(ft_printable_piece("\xc2\x9b", 2, esc), 2);
	assert_string_equal(esc, "\\u009b");
	assert_int_equal(ft_printable_piece("\r\n", 1, esc), 1);
	assert_string_equal(esc, "\\x0d");
	assert_int_equal(ft_printable_piece("", 0, esc), 0);
	assert_string_equal(esc, "");
}

/*
 * An observation's file is held whole, at any length, by the set: the
 * caller's buffer may change or go away; a file is stored once however many
 * observations name it; "" and NULL need no memory.
 */
static void
test_obs_file_whole(void **state)
{
	struct ft_obs_set set;
	struct ft_strpool pool;
	struct ft_obs o;
	char path[5000];
	size_t i;

	(void)state;
	for (i = 0; i < 4800; i++)
		path[i] = (char)('a' + i % 26);
	snprintf(path + 4800, sizeof(path) - 4800, "/node07/ibstat.txt");
	ft_obs_set_init(&set);
	ft_obs_init(&o, "ib.port.state");
	assert_string_equal(o.file, "");
	o.file = path;
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	o.file = NULL;
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	memset(path, 'z', 100); /* the set holds its own copy */
	assert_int_equal(strlen(ft_obs_set_at(&set, 0)->file), 4818);
	assert_memory_equal(ft_obs_set_at(&set, 0)->file, "abcdefghij", 10);
	assert_string_equal(ft_obs_set_at(&set, 0)->file + 4800, "/node07/ibstat.txt");
	assert_ptr_equal(ft_obs_set_at(&set, 0)->file, ft_obs_set_at(&set, 1)->file);
	assert_string_equal(ft_obs_set_at(&set, 2)->file, "");
	assert_int_equal(set.files.s.len, 1);
	ft_obs_set_release(&set);

	/* a record copied from one container into another is re-pointed there */
	ft_strpool_init(&pool);
	ft_obs_init(&o, "k");
	o.file = "a/b.txt";
	assert_int_equal(ft_obs_intern(&pool, &o), 0);
	assert_string_equal(o.file, "a/b.txt");
	assert_ptr_equal(o.file, ft_strpool_intern(&pool, "a/b.txt"));
	assert_string_equal(ft_strpool_intern(&pool, NULL), "");
	assert_int_equal(pool.s.len, 1);
	ft_strpool_release(&pool);

	/* 200,000 distinct files (a hostile export): hashed, each held once */
	ft_strpool_init(&pool);
	for (i = 0; i < 200000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "n%zu/ibstat.txt", i);
		assert_non_null(ft_strpool_intern(&pool, name));
	}
	assert_int_equal(pool.s.len, 200000);
	for (i = 0; i < 200000; i += 997) {
		char name[32];

		snprintf(name, sizeof(name), "n%zu/ibstat.txt", i);
		assert_ptr_equal(ft_strpool_intern(&pool, name), *(char **)ft_vec_at(&pool.s, i));
	}
	assert_int_equal(pool.s.len, 200000);
	ft_strpool_release(&pool);
}

static void
test_json(void **state)
{
	struct ft_strbuf sb;
	struct ft_json j;

	ft_strbuf_init(&sb);
	ft_json_init(&j, &sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "name", "a\"b\n");
	ft_json_key(&j, "rows");
	ft_json_arr_begin(&j);
	ft_json_double(&j, 0.1);
	ft_json_double(&j, 1e300);
	ft_json_double(&j, NAN);
	ft_json_int(&j, -3);
	ft_json_obj_begin(&j);
	ft_json_obj_end(&j);
	ft_json_arr_end(&j);
	ft_json_kv_bool(&j, "ok", true);
	ft_json_obj_end(&j);
	assert_string_equal(sb.buf,
			    "{\"name\":\"a\\\"b\\n\",\"rows\":[0.1,1e+300,null,-3,{}],\"ok\":true}");
	ft_strbuf_reset(&sb);
	ft_json_init(&j, &sb, true);
	ft_json_obj_begin(&j);
	ft_json_kv_int(&j, "a", 1);
	ft_json_key(&j, "b");
	ft_json_arr_begin(&j);
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	assert_string_equal(sb.buf, "{\n  \"a\": 1,\n  \"b\": []\n}");
	ft_strbuf_release(&sb);
}

static void
test_table(void **state)
{
	struct ft_table t;
	struct ft_strbuf sb;

	ft_table_init(&t);
	ft_table_col(&t, "size", FT_ALIGN_RIGHT);
	ft_table_col(&t, "name", FT_ALIGN_LEFT);
	assert_int_equal(ft_table_cell(&t, "8"), 0);
	assert_int_equal(ft_table_cell(&t, "x"), 0);
	assert_int_equal(ft_table_cellf(&t, "%d", 1024), 0);
	assert_int_equal(ft_table_cell(&t, "longer"), 0);
	assert_int_equal(ft_table_nrows(&t), 2);
	ft_strbuf_init(&sb);
	ft_table_render(&t, &sb);
	assert_string_equal(sb.buf, "size  name\n"
				    "   8  x\n"
				    "1024  longer\n");
	ft_strbuf_release(&sb);
	ft_table_release(&t);
}

/*
 * A cell that could not be added (its copy's allocation failed) would shift every
 * later cell into the wrong column: the table renders nothing and marks the buffer
 * oom, so the writer reports FT_ENOMEM rather than a garbled table.
 */
static void
test_table_oom(void **state)
{
	struct ft_table t;
	struct ft_strbuf sb;

	(void)state;
	ft_table_init(&t);
	ft_table_col(&t, "size", FT_ALIGN_RIGHT);
	ft_table_col(&t, "name", FT_ALIGN_LEFT);
	assert_int_equal(ft_table_cell(&t, "8"), 0);
	ft__alloc_fail_at(1);
	assert_int_equal(ft_table_cell(&t, "x"), FT_ENOMEM);
	assert_true(ft__alloc_failed());
	assert_int_equal(ft_table_cellf(&t, "%d", 1024), 0);
	assert_int_equal(ft_table_cell(&t, "longer"), 0);
	ft_strbuf_init(&sb);
	ft_strbuf_adds(&sb, "before\n");
	ft_table_render(&t, &sb);
	assert_true(sb.oom);
	assert_string_equal(sb.buf, "before\n");
	ft_strbuf_release(&sb);
	ft_table_release(&t);
}

static void
test_result_model(void **state)
{
	struct ft_run run;
	struct ft_result_row row;
	struct ft_obs o;
	char ent[64];
	enum ft_source s;

	ft_run_init(&run, FT_SOURCE_MODEL, NULL);
	assert_string_equal(run.kind, "model");
	ft_result_row_init(&row);
	assert_true(isnan(row.busbw_GBps));
	assert_int_equal(row.wrong, -1);
	row.bytes = 1024;
	assert_int_equal(ft_run_add(&run, &row), 0);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(ft_run_row(&run, 0)->bytes, 1024);
	ft_run_release(&run);
	assert_int_equal(ft_source_from_name("sim", &s), 0);
	assert_int_equal(s, FT_SOURCE_SIM);
	assert_int_equal(ft_source_from_name("nope", &s), FT_EINVAL);
	ft_obs_init(&o, "ib.port.state");
	ft_strlcpy(o.host, "node1", sizeof(o.host));
	ft_strlcpy(o.device, "mlx5_0", sizeof(o.device));
	o.port = 1;
	ft_obs_entity(&o, ent, sizeof(ent));
	assert_string_equal(ent, "node1/mlx5_0/port 1");
	assert_string_equal(ft_layer_name(FT_LAYER_FABRIC), "fabric");
	assert_string_equal(ft_severity_name(FT_SEV_CRITICAL), "critical");
}

/* ---- launcher detection and usage ------------------------------------------ */

static void
detect(char **env, enum ft_launcher want, uint32_t rank, uint32_t size, int32_t local,
       bool mpi)
{
	struct ft_error err = { 0 };
	struct ft_launch l;

	assert_int_equal(ft_launch_detect(env, &l, &err), 0);
	assert_string_equal(ft_launcher_name(l.launcher), ft_launcher_name(want));
	assert_int_equal(l.rank, rank);
	assert_int_equal(l.size, size);
	assert_int_equal(l.local_rank, local);
	assert_int_equal(l.mpi, mpi);
}

static void
test_launch_detect(void **state)
{
	char *none[] = { "HOME=/root", "RANKING=3", NULL };
	char *ompi[] = { "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
		         "OMPI_COMM_WORLD_LOCAL_RANK=1", "PMIX_RANK=3", NULL };
	char *hydra[] = { "PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=0", NULL };
	char *pmix[] = { "PMIX_RANK=5", NULL };
	char *srun_pmi[] = { "SLURM_PROCID=2", "SLURM_NTASKS=8", "SLURM_STEP_NUM_TASKS=4",
		             "SLURM_STEP_ID=0", "SLURM_LOCALID=0", "PMI_RANK=2", NULL };
	char *srun[] = { "SLURM_PROCID=1", "SLURM_NTASKS=4", "SLURM_STEP_ID=3",
		         "SLURM_LOCALID=1", "SLURM_NTASKS_PER_NODE=2(x2)", NULL };
	char *batch[] = { "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_JOB_ID=7", NULL };
	char *torch[] = { "RANK=1", "WORLD_SIZE=2", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2",
		          "MASTER_ADDR=10.0.0.1", "MASTER_PORT=29500", NULL };
	char *one[] = { "SLURM_PROCID=0", "SLURM_NTASKS=1", "SLURM_STEP_ID=0", NULL };
	char *bad_rank[] = { "OMPI_COMM_WORLD_RANK=4", "OMPI_COMM_WORLD_SIZE=4", NULL };
	char *bad_num[] = { "RANK=x", "WORLD_SIZE=2", NULL };
	struct ft_error err = { 0 };
	struct ft_launch l;

	detect(none, FT_LAUNCHER_NONE, 0, 1, -1, false);
	detect(ompi, FT_LAUNCHER_OMPI, 3, 4, 1, true);
	detect(hydra, FT_LAUNCHER_PMI, 1, 2, 0, true);
	detect(pmix, FT_LAUNCHER_PMIX, 5, 0, -1, true); /* size unknown: still parallel */
	detect(srun_pmi, FT_LAUNCHER_SLURM_PMI, 2, 4, 0, true);
	detect(srun, FT_LAUNCHER_SLURM, 1, 4, 1, false);
	detect(batch, FT_LAUNCHER_NONE, 0, 1, -1, false);
	detect(torch, FT_LAUNCHER_TORCHRUN, 1, 2, 1, false);
	detect(one, FT_LAUNCHER_SLURM, 0, 1, -1, false);
	assert_int_equal(ft_launch_detect(pmix, &l, &err), 0);
	assert_true(ft_launch_is_parallel(&l));
	assert_int_equal(ft_launch_detect(one, &l, &err), 0);
	assert_false(ft_launch_is_parallel(&l));
	assert_int_equal(ft_launch_detect(torch, &l, &err), 0);
	assert_string_equal(l.master, "10.0.0.1:29500");
	assert_false(ft_launch_is_host_leader(&l));
	assert_int_equal(ft_launch_detect(srun, &l, &err), 0);
	assert_string_equal(l.vars, "SLURM_PROCID=1 SLURM_NTASKS=4");
	assert_int_equal(ft_launch_detect(bad_rank, &l, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "OMPI_COMM_WORLD_RANK=4 is not below OMPI_COMM_WORLD_SIZE=4"));
	ft_error_clear(&err);
	assert_int_equal(ft_launch_detect(bad_num, &l, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "RANK='x'"));
	ft_error_clear(&err);
}

static void
test_usage(void **state)
{
	static const char stat1[] = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 100 0 50 800 50 0 0 0\n";
	static const char stat2[] = "intr 1\ncpu  200 0 100 1500 100 0 0 0 0 0\n";
	struct ft_usage_sample a, b;
	uint64_t busy, total;
	struct ft_run run;

	assert_int_equal(ft_usage_parse_stat(stat1, &busy, &total), 0);
	assert_int_equal(total, 1000);
	assert_int_equal(busy, 150);
	assert_int_equal(ft_usage_parse_stat(stat2, &busy, &total), 0);
	assert_int_equal(total, 1900);
	assert_int_equal(ft_usage_parse_stat("cpu0 1 2 3 4\n", &busy, &total), FT_EPARSE);
	assert_int_equal(ft_usage_parse_stat("cpu  1 2\n", &busy, &total), FT_EPARSE);

	/* 150 of 900 more jiffies busy: 1/6 */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.wall_s = 1.8e9;
	a.mono_s = 10.0;
	b.mono_s = 12.5;
	a.cpu_s = 1.0;
	b.cpu_s = 3.0;
	a.host_busy = 150, a.host_total = 1000;
	b.host_busy = 300, b.host_total = 1900;
	b.load1 = 0.5;
	ft_run_init(&run, FT_SOURCE_BENCH, "bench");
	ft_usage_apply(&a, &b, &run);
	assert_true(run.started_s == 1.8e9);
	assert_true(fabs(run.wall_s - 2.5) < 1e-12);
	assert_true(fabs(run.cpu_s - 2.0) < 1e-12);
	assert_true(fabs(run.host_busy - 150.0 / 900.0) < 1e-12);
	assert_true(run.load1 == 0.5);
	ft_run_release(&run);

	/* the wall clock, never a monotonic time since boot: after 2020-01-01 */
	ft_usage_sample(&a);
	assert_true(a.wall_s > 1577836800.0);
	assert_true(ft_wall_s() > 1577836800.0);
}

/* src/base/file.c: the first temporary name's salt, for tests (0: from the clock) */
extern uint64_t ft__file_temp_salt;

/* The temporary name ft_file_write() tries at @attempt for DIR/BASE. */
static void
temp_name(char *buf, size_t cap, const char *dir, const char *base, uint64_t salt, unsigned attempt)
{
	snprintf(buf, cap, "%s/.%s.%06" PRIx64 ".tmp", dir, base,
	         (salt + attempt * 7919u) & 0xffffff);
}

static void
slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void
spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * The safe writer's temporary file is created with O_EXCL|O_NOFOLLOW: a
 * symlink or a regular file planted at the exact name it tries first is
 * neither followed nor clobbered; it moves on to the next name, and when
 * every name it would try is taken it fails, naming the target.
 */
static void
test_file_write_planted_temp(void **state)
{
	const uint64_t salt = 0x5a17ed;
	char dir[] = "/tmp/ft-test-planted-XXXXXX";
	char target[256], victim[256], ghost[256], t[3][320], all[100][320], buf[256];
	struct ft_error err;
	struct stat st;
	unsigned i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/out.json", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(ghost, sizeof(ghost), "%s/ghost", dir);
	for (i = 0; i < 3; i++)
		temp_name(t[i], sizeof(t[i]), dir, "out.json", salt, i);
	spit(victim, "victim\n");
	spit(target, "old\n");
	assert_int_equal(symlink(victim, t[0]), 0); /* a symlink to a file */
	spit(t[1], "planted\n");                  /* a regular file */
	assert_int_equal(symlink(ghost, t[2]), 0);  /* a dangling symlink */

	ft__file_temp_salt = salt;
	memset(&err, 0, sizeof(err));
	assert_int_equal(ft_file_write(target, "new\n", 4, &err), 0);
	slurp(target, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	slurp(victim, buf, sizeof(buf));
	assert_string_equal(buf, "victim\n");
	slurp(t[1], buf, sizeof(buf));
	assert_string_equal(buf, "planted\n");
	assert_int_equal(lstat(t[0], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(t[2], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(ghost, &st), -1); /* nothing created through it */

	/* every name taken: a clear error naming the target, nothing written */
	for (i = 0; i < 100; i++) {
		temp_name(all[i], sizeof(all[i]), dir, "out.json", salt, i);
		if (i >= 3)
			assert_int_equal(symlink(victim, all[i]), 0);
	}
	memset(&err, 0, sizeof(err));
	assert_true(ft_file_write(target, "newer\n", 6, &err) < 0);
	assert_non_null(strstr(err.msg, target));
	assert_non_null(strstr(err.msg, "cannot create a temporary file beside it"));
	slurp(target, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	slurp(victim, buf, sizeof(buf));
	assert_string_equal(buf, "victim\n");
	ft__file_temp_salt = 0;

	for (i = 0; i < 100; i++)
		assert_int_equal(unlink(all[i]), 0);
	assert_int_equal(unlink(victim), 0);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(rmdir(dir), 0); /* nothing else was left behind */
}

/* One record written from a table of fields: each type, the scaled and the missing values. */
struct fields_rec {
	char name[8];
	uint8_t u8;
	uint32_t u32;
	uint64_t u64;
	int root;
	double num, nan_num, t_s, rate_Bps, share;
	bool up;
};

static void
test_fields(void **state)
{
#define F(key, type, m) FT__FIELD(struct fields_rec, key, type, m)
	static const struct ft__field fields[] = {
		F("name", STR, name),
		F("u8", UINT, u8),
		F("u32", UINT, u32),
		F("u64", UINT, u64),
		F("root", INT, root),
		F("num", NUM, num),
		F("missing", NUM, nan_num),
		F("t_us", US, t_s),
		FT__FIELD_SCALED(struct fields_rec, "rate_GBps", rate_Bps, 1e-9),
		F("share", DOUBLE, share),
		F("up", BOOL, up),
	};
#undef F
	static const struct ft__col cols[] = { { "a", FT_ALIGN_LEFT }, { "b", FT_ALIGN_RIGHT } };
	struct fields_rec r = { "gpu0", 200,    4000000000u, 1ull << 40, -1,  1.0 / 3,
		                NAN,    2.5e-6, 4e11,        0.25,       true };
	struct ft_strbuf sb;
	struct ft_table t;
	struct ft_json j;

	(void)state;
	ft_strbuf_init(&sb);
	ft_json_init(&j, &sb, false);
	ft__json_object(&j, NULL, &r, fields, FT_ARRAY_SIZE(fields));
	assert_string_equal(sb.buf,
	                    "{\"name\":\"gpu0\",\"u8\":200,\"u32\":4000000000,"
	                    "\"u64\":1099511627776,\"root\":-1,\"num\":0.333333,\"missing\":null,"
	                    "\"t_us\":2.5,\"rate_GBps\":400,\"share\":0.25,\"up\":true}");
	ft_strbuf_reset(&sb);
	ft_table_init(&t);
	ft__table_cols(&t, cols, FT_ARRAY_SIZE(cols));
	assert_int_equal(ft_table_cell(&t, "x"), 0);
	assert_int_equal(ft_table_cell(&t, "10"), 0);
	assert_int_equal(ft_table_cell(&t, "long"), 0);
	assert_int_equal(ft_table_cell(&t, "1"), 0);
	ft_table_render(&t, &sb);
	assert_string_equal(sb.buf, "a      b\nx     10\nlong   1\n");
	ft_table_release(&t);
	ft_strbuf_release(&sb);
}

/* ft__with_file_text hands the whole file to its callback, or the reader's error. */
static int
count_text(const char *text, size_t len, const char *path, void *ctx, struct ft_error *err)
{
	(void)path;
	(void)err;
	*(size_t *)ctx = len;
	return strcmp(text, "name: x\n") == 0 ? 7 : -1;
}

/* Order statistics: known medians of odd, even, unsorted and empty samples. */
static void
test_median(void **state)
{
	double odd[] = { 5, -1, 3, 9, 0 };
	double even[] = { 4, 1, 3, 2 };
	double one[] = { 7.5 };
	double dup[] = { 2, 2, 1, 2 };

	(void)state;
	assert_true(ft__median(odd, 5) == 3);
	for (size_t i = 1; i < 5; i++)
		assert_true(odd[i - 1] <= odd[i]); /* sorted in place */
	assert_true(odd[0] == -1 && odd[4] == 9);
	assert_true(ft__median(even, 4) == 2.5);
	assert_true(ft__median(one, 1) == 7.5);
	assert_true(ft__median(dup, 4) == 2);
	assert_true(isnan(ft__median(NULL, 0)));
	ft__sort_doubles(even, 0); /* nothing to sort: no access */
}

static void
test_with_file_text(void **state)
{
	char dir[] = "/tmp/ft-test-text-XXXXXX", path[64];
	struct ft_error err = { 0 };
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("name: x\n", f);
	fclose(f);
	assert_int_equal(ft__with_file_text(path, count_text, &len, &err), 7);
	assert_int_equal(len, 8);
	unlink(path);
	len = 0;
	assert_int_equal(ft__with_file_text(path, count_text, &len, &err), FT_ENOENT);
	assert_int_equal(len, 0); /* not called */
	assert_non_null(strstr(err.msg, path));
	rmdir(dir);
}

/* A record with observations after a header, as findings and advice hold them. */
struct rec {
	int id;
	size_t nobs;
	struct ft_obs obs[3];
};

static void
test_recset(void **state)
{
	struct ft_vec v;
	struct ft_strpool files;
	struct rec r;
	char name[16];
	const struct rec *a, *b;

	ft__recset_init(&v, &files, sizeof(struct rec));
	assert_int_equal(v.len, 0);
	memset(&r, 0, sizeof(r));
	r.id = 7;
	r.nobs = 2;
	ft_obs_init(&r.obs[0], "x.a");
	ft_obs_init(&r.obs[1], "x.b");
	ft_obs_init(&r.obs[2], "x.c");
	snprintf(name, sizeof(name), "%s", "a.log");
	r.obs[0].file = name;
	r.obs[1].file = "b.log";
	r.obs[2].file = name; /* beyond nobs: copied as it is, not interned */
	assert_int_equal(ft__recset_add(&v, &files, &r, offsetof(struct rec, obs), r.nobs), 0);
	r.id = 8;
	assert_int_equal(ft__recset_add(&v, &files, &r, offsetof(struct rec, obs), 1), 0);
	snprintf(name, sizeof(name), "%s", "gone");
	assert_int_equal(v.len, 2);
	a = ft_vec_at(&v, 0);
	b = ft_vec_at(&v, 1);
	assert_int_equal(a->id, 7);
	assert_int_equal(b->id, 8);
	assert_string_equal(a->obs[0].key, "x.a");
	/* the files are the pool's copies, one a name, whatever the caller's buffer holds later */
	assert_string_equal(a->obs[0].file, "a.log");
	assert_string_equal(a->obs[1].file, "b.log");
	assert_ptr_equal(a->obs[0].file, b->obs[0].file);
	assert_ptr_not_equal(a->obs[0].file, name);
	assert_ptr_equal(a->obs[2].file, name);
	assert_int_equal(files.s.len, 2);
	ft__recset_release(&v, &files);

	/* an allocation failing anywhere in an add leaves the set as it was */
	for (unsigned long n = 1;; n++) {
		bool fired;
		int rc;

		ft__recset_init(&v, &files, sizeof(struct rec));
		r.obs[0].file = "a.log";
		r.obs[1].file = "b.log";
		ft__alloc_fail_at(0);
		assert_int_equal(ft__recset_add(&v, &files, &r, offsetof(struct rec, obs), 1), 0);
		ft__alloc_fail_at(n);
		rc = ft__recset_add(&v, &files, &r, offsetof(struct rec, obs), 2);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		assert_int_equal(rc, fired ? FT_ENOMEM : 0);
		assert_int_equal(v.len, fired ? 1 : 2);
		ft__recset_release(&v, &files);
		if (!fired) {
			assert_true(n > 1); /* the add allocates: failures were tried */
			break;
		}
		assert_true(n < 100);
	}
}

/*
 * ft__malloc_aligned() fails where the injector says, as ft_malloc() does
 * (NULL, and ft__alloc_failed() reports it), and otherwise returns a block
 * on a multiple of @align at every size, 0 and odd sizes among them, whose
 * every byte may be written.
 */
static void
test_malloc_aligned(void **state)
{
	static const size_t aligns[] = { sizeof(void *), 64, 4096, (size_t)2 << 20 };
	static const size_t sizes[] = { 0, 1, 13, 4095, 4097, 65507, 131109, (1u << 20) + 3 };
	size_t a, i;
	void *p;

	(void)state;
	ft__alloc_fail_at(1);
	p = ft__malloc_aligned(4096, 100);
	assert_null(p);
	assert_true(ft__alloc_failed());
	/* once: the next call succeeds */
	p = ft__malloc_aligned(4096, 100);
	assert_non_null(p);
	ft_free(p);
	ft__alloc_fail_at(2);
	p = ft__malloc_aligned(64, 1);
	assert_non_null(p);
	assert_false(ft__alloc_failed());
	ft_free(p);
	assert_null(ft__malloc_aligned(64, 1));
	assert_true(ft__alloc_failed());
	ft__alloc_fail_at(0);
	for (a = 0; a < FT_ARRAY_SIZE(aligns); a++)
		for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
			p = ft__malloc_aligned(aligns[a], sizes[i]);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % aligns[a], 0);
			memset(p, 0x5a, sizes[i] ? sizes[i] : 1);
			ft_free(p);
		}
	assert_false(ft__alloc_failed());
}

/* @dir joined with @name, in a static buffer of @i's slot. */
static const char *
under(const char *dir, const char *name, int i)
{
	static char buf[8][320];

	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/*
 * A folder given as an input stands for the regular files under it: depth
 * first, names in byte order at each level (so "B" before "a", "a/1" before
 * "b"), hidden names and FIFOs left out, a link back up (a loop) walked
 * once; a path that is not a folder is kept as given; past the file limit
 * an error names the folder and the limit.
 */
static void
test_input_paths_walk(void **state)
{
	char dir[] = "/tmp/ft-test-walk-XXXXXX";
	const char *want[] = { "B.txt", "a/1.txt", "a/sub/z.txt", "b.txt", "link.txt" };
	const char *args[2];
	struct ft_error err = { 0 };
	struct ft_vec out;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mkdir(under(dir, "a", 0), 0700), 0);
	assert_int_equal(mkdir(under(dir, "a/sub", 0), 0700), 0);
	assert_int_equal(mkdir(under(dir, ".git", 0), 0700), 0);
	spit(under(dir, "b.txt", 0), "b\n");
	spit(under(dir, "B.txt", 0), "B\n");
	spit(under(dir, "a/1.txt", 0), "1\n");
	spit(under(dir, "a/sub/z.txt", 0), "z\n");
	spit(under(dir, ".hidden", 0), "h\n");
	spit(under(dir, ".git/config", 0), "c\n");
	assert_int_equal(symlink("b.txt", under(dir, "link.txt", 0)), 0);
	assert_int_equal(symlink("..", under(dir, "a/sub/up", 0)), 0); /* a loop */
	assert_int_equal(symlink("nowhere", under(dir, "dangling", 0)), 0);
	assert_int_equal(mkfifo(under(dir, "fifo", 0), 0600), 0);

	args[0] = dir;
	args[1] = "not-a-folder.txt";
	ft_vec_init(&out, sizeof(struct ft_input_path));
	assert_int_equal(ft_input_paths_expand(args, 2, &out, &err), 0);
	assert_int_equal(out.len, FT_ARRAY_SIZE(want) + 1);
	for (i = 0; i < FT_ARRAY_SIZE(want); i++) {
		const struct ft_input_path *p = ft_vec_at(&out, i);

		assert_string_equal(p->path, under(dir, want[i], 1));
		assert_ptr_equal(p->dir, dir);
	}
	assert_string_equal(FT_VEC_AT(&out, struct ft_input_path, i).path, "not-a-folder.txt");
	assert_null(FT_VEC_AT(&out, struct ft_input_path, i).dir);
	ft_input_paths_release(&out);

	/* the file limit: an error naming the folder and the limit */
	setenv("FABTUNE_MAX_FILES", "3", 1);
	ft_vec_init(&out, sizeof(struct ft_input_path));
	assert_int_equal(ft_input_paths_expand(args, 1, &out, &err), FT_ERANGE);
	assert_string_equal(err.msg + strlen(dir),
	                    ": more than 3 files in the folder (FABTUNE_MAX_FILES raises the limit)");
	ft_input_paths_release(&out);
	unsetenv("FABTUNE_MAX_FILES");

	for (i = 0; i < FT_ARRAY_SIZE(want); i++)
		unlink(under(dir, want[i], 0));
	unlink(under(dir, "a/sub/up", 0));
	unlink(under(dir, "dangling", 0));
	unlink(under(dir, "fifo", 0));
	unlink(under(dir, ".hidden", 0));
	unlink(under(dir, ".git/config", 0));
	rmdir(under(dir, ".git", 0));
	rmdir(under(dir, "a/sub", 0));
	rmdir(under(dir, "a", 0));
	rmdir(dir);
}

/*
 * A child that exits after @sleep_s seconds, writing the monotonic time at
 * which it exits to @*exit_s (shared), or with @sleep_s < 0 that waits to be
 * killed. Either ends by SIGALRM within 10 s, so that a failed test leaves no
 * child behind holding the runner's output open.
 */
static pid_t
child_after(double sleep_s, volatile double *exit_s)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec ts = { (time_t)sleep_s,
			               (long)((sleep_s - (double)(time_t)sleep_s) * 1e9) };

		alarm(10);
		if (sleep_s < 0)
			for (;;)
				pause();
		nanosleep(&ts, NULL);
		if (exit_s)
			*exit_s = ft_now_s();
		_exit(7);
	}
	return pid;
}

/*
 * base/childwait.c, the launchers' wait for their ranks: a child's exit
 * wakes the wait at once (the launcher used to look every 20 ms, 50 wakes a
 * second), a hung child is still there when the deadline comes and the wait
 * ends at that deadline (never before it), and a child that stops (SIGSTOP)
 * wakes it too, since the launcher names stopped ranks. The bounds on
 * lateness are loose (a loaded host runs the waiter late); the counts of
 * wakes are what a 20 ms tick would break.
 */
static void
test_childwait(void **state)
{
	struct ft__childwait cw;
	volatile double *exit_s;
	pid_t pids[2];
	double t0, seen = 0, deadline, woke;
	int status = 0, rc;
	unsigned long wakes_before;

	(void)state;
	exit_s = mmap(NULL, sizeof(*exit_s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	              -1, 0);
	assert_true(exit_s != MAP_FAILED);
	*exit_s = 0;
	pids[0] = child_after(0.3, exit_s);
	pids[1] = child_after(-1, NULL);
	t0 = ft_now_s();
	deadline = t0 + 1.0;
	assert_int_equal(ft__childwait_open(&cw, pids, 2, NULL), 0);
	while (seen == 0) {
		pid_t got = waitpid(pids[0], &status, WNOHANG);

		assert_true(got == 0 || got == pids[0]);
		if (got == pids[0]) {
			seen = ft_now_s();
			ft__childwait_forget(&cw, 0);
			break;
		}
		assert_int_equal(ft__childwait_wait(&cw, deadline), 1);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	/* the exit was seen when it came: one or two wakes (pidfd, SIGCHLD), not 15 ticks */
	assert_true(*exit_s > 0 && seen >= *exit_s && seen - *exit_s < 0.25);
	assert_true(cw.nwakes <= 3);
	/* the hung child: the wait sleeps through to the deadline in one go */
	wakes_before = cw.nwakes;
	do
		rc = ft__childwait_wait(&cw, deadline);
	while (rc == 1 && waitpid(pids[1], &status, WNOHANG) == 0 && ft_now_s() < deadline);
	woke = ft_now_s();
	assert_int_equal(rc, 0);
	assert_true(woke >= deadline);
	assert_true(woke < deadline + 0.25);
	assert_true(cw.nwakes - wakes_before <= 2);
	assert_int_equal(waitpid(pids[1], &status, WNOHANG), 0); /* still there: killed now */
	kill(pids[1], SIGKILL);
	assert_int_equal(waitpid(pids[1], &status, 0), pids[1]);
	ft__childwait_close(&cw);
	munmap((void *)exit_s, sizeof(*exit_s));

	/* a stop wakes the wait long before its deadline */
	pids[0] = child_after(-1, NULL);
	assert_int_equal(ft__childwait_open(&cw, pids, 1, NULL), 0);
	t0 = ft_now_s();
	kill(pids[0], SIGSTOP);
	assert_int_equal(ft__childwait_wait(&cw, t0 + 5), 1);
	assert_true(ft_now_s() - t0 < 2);
	kill(pids[0], SIGKILL);
	assert_int_equal(waitpid(pids[0], &status, 0), pids[0]);
	ft__childwait_close(&cw);
	/* a deadline that passed makes it sleep not at all */
	assert_int_equal(ft__childwait_open(&cw, pids, 0, NULL), 0);
	t0 = ft_now_s();
	assert_int_equal(ft__childwait_wait(&cw, t0 - 1), 0);
	assert_true(ft_now_s() - t0 < 0.5);
	ft__childwait_close(&cw);
}

/* The four hex digits of @s read up to its end (its whole length). */
static long
hex4_of(const char *s)
{
	return ft__json_hex4(s, s + strlen(s));
}

/*
 * The JSON tokens both readers share (base/jsontok.c): hex digits, UTF-8 by
 * the encoding's table (RFC 3629 section 3), and a number's extent by RFC 8259
 * section 6, each against its value written out by hand.
 */
static void
test_json_tokens(void **state)
{
	static const struct {
		const char *text, *why;
		size_t len;
	} nums[] = {
		{ "-0.5e+3x", NULL, 7 },   { "0", NULL, 1 },   { "012", NULL, 1 },
		{ "12.25E7,", NULL, 7 },   { "-", "expected a digit", 1 },
		{ "x", "expected a digit", 0 }, { "1.", "expected a digit after '.'", 2 },
		{ "1.e5", "expected a digit after '.'", 2 },
		{ "1e+", "expected a digit in the exponent", 3 },
		{ "7E", "expected a digit in the exponent", 2 },
	};
	char b[4];
	const char *why;
	size_t i;

	(void)state;
	assert_int_equal(hex4_of("00e9"), 0xe9);
	assert_int_equal(hex4_of("FfFf"), 0xffff);
	assert_int_equal(hex4_of("12g4"), -1);
	assert_int_equal(hex4_of("123"), -1);
	assert_int_equal(ft__utf8_encode(0x24, b), 1);
	assert_memory_equal(b, "\x24", 1);
	assert_int_equal(ft__utf8_encode(0xa2, b), 2);
	assert_memory_equal(b, "\xc2\xa2", 2);
	assert_int_equal(ft__utf8_encode(0x20ac, b), 3);
	assert_memory_equal(b, "\xe2\x82\xac", 3);
	assert_int_equal(ft__utf8_encode(0x10348, b), 4);
	assert_memory_equal(b, "\xf0\x90\x8d\x88", 4);
	for (i = 0; i < FT_ARRAY_SIZE(nums); i++) {
		const char *t = nums[i].text, *e = ft__json_number_end(t, t + strlen(t), &why);

		assert_int_equal((size_t)(e - t), nums[i].len);
		if (nums[i].why)
			assert_string_equal(why, nums[i].why);
		else
			assert_null(why);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_first_wins),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_malloc_aligned),
		cmocka_unit_test(test_vec),
		cmocka_unit_test(test_name_index),
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_nbytes),
		cmocka_unit_test(test_input_limit_one_byte),
		cmocka_unit_test(test_nccl_table),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_rng_pinned),
		cmocka_unit_test(test_shuffle_is_permutation),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_obs_file_whole),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_oom),
		cmocka_unit_test(test_result_model),
		cmocka_unit_test(test_launch_detect),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_with_file_text),
		cmocka_unit_test(test_file_write_planted_temp),
		cmocka_unit_test(test_recset),
		cmocka_unit_test(test_input_paths_walk),
		cmocka_unit_test(test_childwait),
		cmocka_unit_test(test_json_tokens),
	};
	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
