/* SPDX-License-Identifier: MIT */
/*
 * base/fields.h - writers driven by a table: a struct's members as the
 * members of a JSON object, a table's columns from a list of headers, and a
 * name's index in a table of names. A writer that prints the same kind of
 * record in several places describes it once, as data, and one loop writes
 * it (sim/report.c, plan/render.c).
 *
 * A field names its JSON key, how its value is written, and the member
 * (offset and size, FT__FIELD checks nothing more than that the member
 * exists): the record is borrowed for the call.
 */
#ifndef FT_BASE_FIELDS_H
#define FT_BASE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/json.h>
#include <fabtune/table.h>

enum ft__field_type {
	FT__F_STR,    /* char[size] */
	FT__F_UINT,   /* an unsigned integer of 1, 2, 4 or 8 bytes */
	FT__F_INT,    /* a signed integer of 4 or 8 bytes */
	FT__F_DOUBLE, /* double, as ft_json_double writes it */
	FT__F_NUM,    /* double, 6 significant digits; null when not finite */
	FT__F_US,     /* double seconds as microseconds, 6 digits; null when not finite */
	FT__F_BOOL,   /* bool, or a flag in an unsigned integer (not 0: true) */
};

struct ft__field {
	const char *key;
	enum ft__field_type type;
	size_t off, size;
	double scale; /* FT__F_NUM: the member times this (0: 1) */
};

/* Field @key of type @type (FT__F_ without its prefix) from member @m of struct @st. */
#define FT__FIELD(st, key, type, m)                                         \
	{                                                                   \
		key, FT__F_##type, offsetof(st, m), sizeof(((st *)0)->m), 0 \
	}
/* An FT__F_NUM field written in other units: member @m times @scale (1e-9: GB/s from B/s). */
#define FT__FIELD_SCALED(st, key, m, scale)                                  \
	{                                                                    \
		key, FT__F_NUM, offsetof(st, m), sizeof(((st *)0)->m), scale \
	}

/* The @n fields of @obj as keys and values of the open JSON object (no braces). */
void ft__json_fields(struct ft_json *j, const void *obj, const struct ft__field *f, size_t n);
/* The same inside an object of their own, @key's value (@key NULL: an array element). */
void ft__json_object(struct ft_json *j, const char *key, const void *obj, const struct ft__field *f,
                     size_t n);
/* @v with 6 significant digits, null when not finite (FT__F_NUM's writer). */
void ft__json_kv_num(struct ft_json *j, const char *key, double v);
/* @s as a string, null when it is "" (a name that does not apply). */
void ft__json_kv_str_or_null(struct ft_json *j, const char *key, const char *s);

struct ft__col {
	const char *header;
	enum ft_align align;
};

/* Add the @n columns of @cols to @t in order. */
void ft__table_cols(struct ft_table *t, const struct ft__col *cols, size_t n);

#endif
