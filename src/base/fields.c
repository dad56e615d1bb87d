/* SPDX-License-Identifier: MIT */
/*
 * base/fields.c - the writers of base/fields.h: a record's members as JSON
 * from a table of fields, a table's columns from a list, a name's index.
 */
#include "base/fields.h"

#include "internal.h"

void
ft__json_kv_num(struct ft_json *j, const char *key, double v)
{
	ft_json_key(j, key);
	if (isfinite(v))
		ft_json_double_prec(j, v, 6);
	else
		ft_json_null(j);
}

void
ft__json_kv_str_or_null(struct ft_json *j, const char *key, const char *s)
{
	ft_json_key(j, key);
	if (s[0])
		ft_json_str(j, s);
	else
		ft_json_null(j);
}

static uint64_t
read_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, size < 8 ? size : 8);
		return u64;
	}
}

static int64_t
read_int(const void *p, size_t size)
{
	int32_t i32;
	int64_t i64;

	if (size == sizeof(i32)) {
		memcpy(&i32, p, sizeof(i32));
		return i32;
	}
	memcpy(&i64, p, sizeof(i64));
	return i64;
}

void
ft__json_fields(struct ft_json *j, const void *obj, const struct ft__field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *p = (const char *)obj + f[i].off;
		double d = 0;

		if (f[i].type == FT__F_DOUBLE || f[i].type == FT__F_NUM || f[i].type == FT__F_US)
			memcpy(&d, p, sizeof(d));
		switch (f[i].type) {
		case FT__F_STR:
			ft_json_kv_str(j, f[i].key, p);
			break;
		case FT__F_UINT:
			ft_json_kv_uint(j, f[i].key, read_uint(p, f[i].size));
			break;
		case FT__F_INT:
			ft_json_kv_int(j, f[i].key, read_int(p, f[i].size));
			break;
		case FT__F_DOUBLE:
			ft_json_kv_double(j, f[i].key, d);
			break;
		case FT__F_NUM:
			ft__json_kv_num(j, f[i].key, f[i].scale != 0 ? d * f[i].scale : d);
			break;
		case FT__F_US:
			ft__json_kv_num(j, f[i].key, d * 1e6);
			break;
		case FT__F_BOOL:
			ft_json_kv_bool(j, f[i].key, read_uint(p, f[i].size) != 0);
			break;
		}
	}
}

void
ft__json_object(struct ft_json *j, const char *key, const void *obj, const struct ft__field *f,
                size_t n)
{
	if (key)
		ft_json_key(j, key);
	ft_json_obj_begin(j);
	ft__json_fields(j, obj, f, n);
	ft_json_obj_end(j);
}

void
ft__table_cols(struct ft_table *t, const struct ft__col *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ft_table_col(t, cols[i].header, cols[i].align);
}
