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

/*
 * Reductions. The loops run in blocks of 16 elements on restrict pointers:
 * a fixed trip count and no possible overlap is what gcc's -O2 cost model
 * needs to vectorise them (it will not version a loop for aliasing), and
 * clang vectorises them too. The collectives spend their compute here.
 */
#define OP_SUM_(x, y)  ((x) + (y))
#define OP_PROD_(x, y) ((x) * (y))
#define OP_MAX_(x, y)  ((x) > (y) ? (x) : (y))
#define OP_MIN_(x, y)  ((x) < (y) ? (x) : (y))

#define RED_BLOCK 16

#define DEF_RED_(T, name, OP)                                                          \
	static void red2_##name(T *restrict d, const T *restrict s, size_t n)          \
	{                                                                              \
		size_t i = 0, j;                                                       \
		for (; i + RED_BLOCK <= n; i += RED_BLOCK)                             \
			for (j = 0; j < RED_BLOCK; j++)                                \
				d[i + j] = (T)OP(d[i + j], s[i + j]);                  \
		for (; i < n; i++)                                                     \
			d[i] = (T)OP(d[i], s[i]);                                      \
	}                                                                              \
	static void red3_##name(T *restrict d, const T *restrict a, const T *restrict b, \
	                        size_t n)                                              \
	{                                                                              \
		size_t i = 0, j;                                                       \
		for (; i + RED_BLOCK <= n; i += RED_BLOCK)                             \
			for (j = 0; j < RED_BLOCK; j++)                                \
				d[i + j] = (T)OP(a[i + j], b[i + j]);                  \
		for (; i < n; i++)                                                     \
			d[i] = (T)OP(a[i], b[i]);                                      \
	}

#define DEF_TYPE_(E, T)                       \
	DEF_RED_(T, E##_sum, OP_SUM_)         \
	DEF_RED_(T, E##_prod, OP_PROD_)       \
	DEF_RED_(T, E##_max, OP_MAX_)         \
	DEF_RED_(T, E##_min, OP_MIN_)
FOR_TYPES(DEF_TYPE_)
#undef DEF_TYPE_

#define CASE2_(E, T)                                                   \
	case FT_DTYPE_##E:                                             \
		switch (op) {                                          \
		case FT_REDOP_SUM:                                     \
			red2_##E##_sum(dst, src, count);               \
			break;                                         \
		case FT_REDOP_PROD:                                    \
			red2_##E##_prod(dst, src, count);              \
			break;                                         \
		case FT_REDOP_MAX:                                     \
			red2_##E##_max(dst, src, count);               \
			break;                                         \
		case FT_REDOP_MIN:                                     \
			red2_##E##_min(dst, src, count);               \
			break;                                         \
		case FT_REDOP_COUNT:                                   \
			break;                                         \
		}                                                      \
		break;

void
ft__data_reduce(void *dst, const void *src, size_t count, enum ft_dtype t, enum ft_redop op)
{
	switch (t) {
		FOR_TYPES(CASE2_)
	case FT_DTYPE_COUNT:
		break;
	}
}

#define CASE3_(E, T)                                                   \
	case FT_DTYPE_##E:                                             \
		switch (op) {                                          \
		case FT_REDOP_SUM:                                     \
			red3_##E##_sum(dst, a, b, count);              \
			break;                                         \
		case FT_REDOP_PROD:                                    \
			red3_##E##_prod(dst, a, b, count);             \
			break;                                         \
		case FT_REDOP_MAX:                                     \
			red3_##E##_max(dst, a, b, count);              \
			break;                                         \
		case FT_REDOP_MIN:                                     \
			red3_##E##_min(dst, a, b, count);              \
			break;                                         \
		case FT_REDOP_COUNT:                                   \
			break;                                         \
		}                                                      \
		break;

void
ft__data_reduce3(void *dst, const void *a, const void *b, size_t count, enum ft_dtype t,
                 enum ft_redop op)
{
	/* in place (dst is a): the two-operand loop, whose pointers do not overlap */
	if (dst == a) {
		ft__data_reduce(dst, b, count, t, op);
		return;
	}
	switch (t) {
		FOR_TYPES(CASE3_)
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
