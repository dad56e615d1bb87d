/* SPDX-License-Identifier: MIT */
/*
 * bench/data.c - element types, reductions and data validation.
 *
 * Every rank fills its buffers with a deterministic function of (rank,
 * element index); after a collective each rank recomputes what it should
 * hold and counts the elements that differ (nccl-tests' #wrong column).
 * Values are small integers so that sums are exact in every type; products
 * of floating-point values are compared with a relative tolerance because
 * the order of a ring reduction differs from the checker's.
 */
#include "bench_int.h"

static const struct {
	const char *name;
	size_t size;
} dtypes[] = {
#define FT_DTYPE_ROW_(n, s, sz) { s, sz },
	FT_DTYPE_MAP(FT_DTYPE_ROW_)
#undef FT_DTYPE_ROW_
};
_Static_assert(FT_ARRAY_SIZE(dtypes) == FT_DTYPE_COUNT, "dtype table");

static const char *const redops[] = {
#define FT_REDOP_ROW_(n, s) s,
	FT_REDOP_MAP(FT_REDOP_ROW_)
#undef FT_REDOP_ROW_
};
_Static_assert(FT_ARRAY_SIZE(redops) == FT_REDOP_COUNT, "redop table");

const char *
ft_dtype_name(enum ft_dtype t)
{
	return (unsigned)t < FT_DTYPE_COUNT ? dtypes[t].name : "?";
}

size_t
ft_dtype_size(enum ft_dtype t)
{
	return (unsigned)t < FT_DTYPE_COUNT ? dtypes[t].size : 0;
}

int
ft_dtype_from_name(const char *name, enum ft_dtype *out)
{
	static const struct {
		const char *alias;
		enum ft_dtype t;
	} aliases[] = {
		{ "char", FT_DTYPE_INT8 },     { "int", FT_DTYPE_INT32 },
		{ "float32", FT_DTYPE_FLOAT }, { "float64", FT_DTYPE_DOUBLE },
		{ "uint", FT_DTYPE_UINT32 },   { "f32", FT_DTYPE_FLOAT },
		{ "f64", FT_DTYPE_DOUBLE },
	};
	size_t i;

	for (i = 0; i < FT_DTYPE_COUNT; i++)
		if (strcmp(name, dtypes[i].name) == 0) {
			*out = (enum ft_dtype)i;
			return 0;
		}
	for (i = 0; i < FT_ARRAY_SIZE(aliases); i++)
		if (strcmp(name, aliases[i].alias) == 0) {
			*out = aliases[i].t;
			return 0;
		}
	return FT_EINVAL;
}

const char *
ft_redop_name(enum ft_redop op)
{
	return (unsigned)op < FT_REDOP_COUNT ? redops[op] : "?";
}

int
ft_redop_from_name(const char *name, enum ft_redop *out)
{
	size_t i;

	for (i = 0; i < FT_REDOP_COUNT; i++)
		if (strcmp(name, redops[i]) == 0) {
			*out = (enum ft_redop)i;
			return 0;
		}
	return FT_EINVAL;
}

static inline unsigned
fill_value(uint32_t rank, size_t i)
{
	return (unsigned)((i * 7 + (size_t)rank * 13) % 11) + 1;
}

#define FOR_TYPES(X)        \
	X(INT8, int8_t)     \
	X(UINT8, uint8_t)   \
	X(INT32, int32_t)   \
	X(UINT32, uint32_t) \
	X(INT64, int64_t)   \
	X(UINT64, uint64_t) \
	X(FLOAT, float)     \
	X(DOUBLE, double)

void
ft__data_fill(void *buf, size_t count, enum ft_dtype t, uint32_t rank, size_t first)
{
	size_t i;

	switch (t) {
#define FILL_(E, T)                                                     \
	case FT_DTYPE_##E:                                              \
		for (i = 0; i < count; i++)                             \
			((T *)buf)[i] = (T)fill_value(rank, first + i); \
		break;
		FOR_TYPES(FILL_)
#undef FILL_
	case FT_DTYPE_COUNT:
		break;
	}
}

#define RED_LOOP_(T, expr)                  \
	do {                                \
		T *d = dst;                 \
		const T *s = src;           \
		for (i = 0; i < count; i++) \
			d[i] = (T)(expr);   \
	} while (0)

#define REDUCE_(E, T)                                            \
	case FT_DTYPE_##E:                                       \
		switch (op) {                                    \
		case FT_REDOP_SUM:                               \
			RED_LOOP_(T, d[i] + s[i]);               \
			break;                                   \
		case FT_REDOP_PROD:                              \
			RED_LOOP_(T, d[i] * s[i]);               \
			break;                                   \
		case FT_REDOP_MAX:                               \
			RED_LOOP_(T, d[i] > s[i] ? d[i] : s[i]); \
			break;                                   \
		case FT_REDOP_MIN:                               \
			RED_LOOP_(T, d[i] < s[i] ? d[i] : s[i]); \
			break;                                   \
		case FT_REDOP_COUNT:                             \
			break;                                   \
		}                                                \
		break;

void
ft__data_reduce(void *dst, const void *src, size_t count, enum ft_dtype t, enum ft_redop op)
{
	size_t i;

	switch (t) {
		FOR_TYPES(REDUCE_)
	case FT_DTYPE_COUNT:
		break;
	}
}

static double
expected(enum ft_dtype t, enum ft_redop op, uint32_t nranks, size_t i)
{
	/* computed in the element type so integer wrap-around matches */
	union {
		int8_t i8;
		uint8_t u8;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		float f;
		double d;
	} acc, v;
	uint32_t r;

	ft__data_fill(&acc, 1, t, 0, i);
	for (r = 1; r < nranks; r++) {
		ft__data_fill(&v, 1, t, r, i);
		ft__data_reduce(&acc, &v, 1, t, op);
	}
	switch (t) {
	case FT_DTYPE_INT8:
		return acc.i8;
	case FT_DTYPE_UINT8:
		return acc.u8;
	case FT_DTYPE_INT32:
		return acc.i32;
	case FT_DTYPE_UINT32:
		return acc.u32;
	case FT_DTYPE_INT64:
		return (double)acc.i64;
	case FT_DTYPE_UINT64:
		return (double)acc.u64;
	case FT_DTYPE_FLOAT:
		return acc.f;
	case FT_DTYPE_DOUBLE:
	case FT_DTYPE_COUNT:
		break;
	}
	return acc.d;
}

static double
element(const void *buf, enum ft_dtype t, size_t i)
{
	switch (t) {
#define GET_(E, T)         \
	case FT_DTYPE_##E: \
		return (double)((const T *)buf)[i];
		FOR_TYPES(GET_)
#undef GET_
	case FT_DTYPE_COUNT:
		break;
	}
	return 0;
}

static bool
same(double got, double want, enum ft_dtype t)
{
	if (t == FT_DTYPE_FLOAT || t == FT_DTYPE_DOUBLE)
		return fabs(got - want) <= 1e-5 * fabs(want) + 1e-30;
	return got == want;
}

int64_t
ft__data_check_reduced(const void *buf, size_t count, enum ft_dtype t, enum ft_redop op,
                       uint32_t nranks, size_t first)
{
	int64_t wrong = 0;
	double want[11];
	size_t i, k;

	/* the fill has period 11 in the element index, so 11 expectations cover all */
	for (k = 0; k < 11; k++)
		want[k] = expected(t, op, nranks, k);
	for (i = 0; i < count; i++)
		if (!same(element(buf, t, i), want[(first + i) % 11], t))
			wrong++;
	return wrong;
}

int64_t
ft__data_check_fill(const void *buf, size_t count, enum ft_dtype t, uint32_t rank, size_t first)
{
	int64_t wrong = 0;
	size_t i;

	for (i = 0; i < count; i++)
		if (element(buf, t, i) != (double)fill_value(rank, first + i))
			wrong++;
	return wrong;
}
