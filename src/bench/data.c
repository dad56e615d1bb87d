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
 *
 * half (IEEE 754 binary16) and bfloat16 have no C type: they are stored as
 * uint16_t, widened to float for every step and rounded back to nearest-even,
 * which is what NCCL's reduction kernels do. Their results are compared with
 * nccl-tests' tolerance for 16-bit floats, a relative 1e-2 (its float one is
 * 1e-5): a ring sums in another order than the checker, and bfloat16 keeps
 * only 8 significant bits.
 */
#include "bench_int.h"

/*
 * The names of the types and reductions, and after them "all", which only
 * the options take (-d all, -o all: nccl-tests' every type or reduction):
 * the from_name sets stop before it, the option sets include it.
 */
static const char *const dtype_names[] = {
#define FT_DTYPE_ROW_(n, s, sz) s,
	FT_DTYPE_MAP(FT_DTYPE_ROW_)
#undef FT_DTYPE_ROW_
	"all",
};
static const size_t dtype_sizes[] = {
#define FT_DTYPE_ROW_(n, s, sz) sz,
	FT_DTYPE_MAP(FT_DTYPE_ROW_)
#undef FT_DTYPE_ROW_
};
_Static_assert(FT_ARRAY_SIZE(dtype_names) == FT_DTYPE_COUNT + 1, "dtype table");
_Static_assert(FT_ARRAY_SIZE(dtype_sizes) == FT_DTYPE_COUNT, "dtype table");

static const char *const redops[] = {
#define FT_REDOP_ROW_(n, s) s,
	FT_REDOP_MAP(FT_REDOP_ROW_)
#undef FT_REDOP_ROW_
	"all",
};
_Static_assert(FT_ARRAY_SIZE(redops) == FT_REDOP_COUNT + 1, "redop table");

/* Other spellings of the types (squashed: lower case, no '_' or '-'). */
static const struct ft__name_alias dtype_aliases[] = {
	{ "char", FT_DTYPE_INT8 },     { "int", FT_DTYPE_INT32 },
	{ "float32", FT_DTYPE_FLOAT }, { "float64", FT_DTYPE_DOUBLE },
	{ "uint", FT_DTYPE_UINT32 },   { "f32", FT_DTYPE_FLOAT },
	{ "f64", FT_DTYPE_DOUBLE },    { "float16", FT_DTYPE_HALF },
	{ "fp16", FT_DTYPE_HALF },     { "f16", FT_DTYPE_HALF },
	{ "bf16", FT_DTYPE_BFLOAT16 }, { NULL, 0 },
};

const struct ft__name_set ft__bench_dtypes = { dtype_names, FT_DTYPE_COUNT, 0, dtype_aliases };
const struct ft__name_set ft__bench_dtype_options = { dtype_names, FT_DTYPE_COUNT + 1, 0,
	                                              dtype_aliases };
const struct ft__name_set ft__bench_redops = { redops, FT_REDOP_COUNT, 0, NULL };
const struct ft__name_set ft__bench_redop_options = { redops, FT_REDOP_COUNT + 1, 0, NULL };

const char *
ft_dtype_name(enum ft_dtype t)
{
	return (unsigned)t < FT_DTYPE_COUNT ? dtype_names[t] : "?";
}

size_t
ft_dtype_size(enum ft_dtype t)
{
	return (unsigned)t < FT_DTYPE_COUNT ? dtype_sizes[t] : 0;
}

FT__FROM_NAME(ft_dtype_from_name, enum ft_dtype, ft__bench_dtypes, FT_EINVAL)

FT__NAME_GETTER(ft_redop_name, enum ft_redop, redops, FT_REDOP_COUNT)
FT__FROM_NAME(ft_redop_from_name, enum ft_redop, ft__bench_redops, FT_EINVAL)

/* ---- 16-bit floating point ---------------------------------------------------- */

static inline uint32_t
f32_bits(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	return x;
}

static inline float
f32_from_bits(uint32_t x)
{
	float f;

	memcpy(&f, &x, sizeof(f));
	return f;
}

uint16_t
ft__half_from_float(float f)
{
	uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu, h, rem;

	if (ax > 0x7f800000u) /* NaN: stays a NaN, made quiet, top payload bits kept */
		return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
	if (ax >= 0x477ff000u) /* 65520 and up (and Inf): rounds past 65504 to Inf */
		return (uint16_t)(sign | 0x7c00u);
	if (ax < 0x38800000u) {
		/* below 2^-14: a subnormal half, a count of 2^-24 units; the scaling by
		   2^24 is exact and nearbyintf() rounds half to even */
		float units = nearbyintf(f32_from_bits(ax) * 16777216.0f);

		return (uint16_t)(sign | (uint32_t)units);
	}
	/* normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to
	   nearest-even; a carry out of the mantissa steps the exponent, as it should */
	ax -= 112u << 23;
	h = ax >> 13;
	rem = ax & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
		h++;
	return (uint16_t)(sign | h);
}

float
ft__half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

	if (e == 0) /* zero or subnormal: m units of 2^-24, exact in float */
		return sign ? -(float)m / 16777216.0f : (float)m / 16777216.0f;
	if (e == 31)
		return f32_from_bits(sign | 0x7f800000u | (m << 13));
	return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t
ft__bf16_from_float(float f)
{
	uint32_t x = f32_bits(f);

	if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet it, or truncation could make Inf */
		return (uint16_t)((x >> 16) | 0x40u);
	/* round to nearest-even on the 16 dropped bits; overflow carries into Inf */
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

float
ft__bf16_to_float(uint16_t b)
{
	return f32_from_bits((uint32_t)b << 16);
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

/* premulsum's scalar of rank @r, as nccl-tests' verifiable scalar: 1 on even ranks, 2 on odd */
static inline unsigned
premul_scalar(uint32_t r)
{
	return r % 2 ? 2u : 1u;
}

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
	case FT_DTYPE_HALF:
		for (i = 0; i < count; i++)
			((uint16_t *)buf)[i] = ft__half_from_float((float)fill_value(rank, first + i));
		break;
	case FT_DTYPE_BFLOAT16:
		for (i = 0; i < count; i++)
			((uint16_t *)buf)[i] = ft__bf16_from_float((float)fill_value(rank, first + i));
		break;
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

/* d[i] = a[i] OP b[i] for i < n, in blocks; red2 passes d as a (d[i] OP= s[i]). */
#define RED_LOOP_(T, OP, d, a, b, n)                                       \
	do {                                                               \
		size_t i = 0, j;                                           \
		for (; i + RED_BLOCK <= n; i += RED_BLOCK)                 \
			for (j = 0; j < RED_BLOCK; j++)                    \
				d[i + j] = (T)OP(a[i + j], b[i + j]);      \
		for (; i < n; i++)                                         \
			d[i] = (T)OP(a[i], b[i]);                          \
	} while (0)

#define DEF_RED_(T, name, OP)                                                          \
	static void red2_##name(T *restrict d, const T *restrict s, size_t n)          \
	{                                                                              \
		RED_LOOP_(T, OP, d, d, s, n);                                          \
	}                                                                              \
	static void red3_##name(T *restrict d, const T *restrict a, const T *restrict b, \
	                        size_t n)                                              \
	{                                                                              \
		RED_LOOP_(T, OP, d, a, b, n);                                          \
	}

#define DEF_TYPE_(E, T)                       \
	DEF_RED_(T, E##_sum, OP_SUM_)         \
	DEF_RED_(T, E##_prod, OP_PROD_)       \
	DEF_RED_(T, E##_max, OP_MAX_)         \
	DEF_RED_(T, E##_min, OP_MIN_)
FOR_TYPES(DEF_TYPE_)
#undef DEF_TYPE_

/* 16-bit floats: widened to float, reduced, rounded back after every step */
#define DEF_RED16_(name, TO, FROM, OP)                                                 \
	static void red2_##name(uint16_t *restrict d, const uint16_t *restrict s, size_t n) \
	{                                                                              \
		size_t i;                                                              \
		for (i = 0; i < n; i++)                                                \
			d[i] = FROM(OP(TO(d[i]), TO(s[i])));                           \
	}                                                                              \
	static void red3_##name(uint16_t *restrict d, const uint16_t *restrict a,      \
	                        const uint16_t *restrict b, size_t n)                  \
	{                                                                              \
		size_t i;                                                              \
		for (i = 0; i < n; i++)                                                \
			d[i] = FROM(OP(TO(a[i]), TO(b[i])));                           \
	}
#define DEF_TYPE16_(E, TO, FROM)                \
	DEF_RED16_(E##_sum, TO, FROM, OP_SUM_)   \
	DEF_RED16_(E##_prod, TO, FROM, OP_PROD_) \
	DEF_RED16_(E##_max, TO, FROM, OP_MAX_)   \
	DEF_RED16_(E##_min, TO, FROM, OP_MIN_)
DEF_TYPE16_(HALF, ft__half_to_float, ft__half_from_float)
DEF_TYPE16_(BFLOAT16, ft__bf16_to_float, ft__bf16_from_float)
#undef DEF_TYPE16_

#define FOR_ALL_TYPES(X) \
	FOR_TYPES(X)     \
	X(HALF, uint16_t) \
	X(BFLOAT16, uint16_t)

/*
 * Call the @fn##_<op> loop of reduction @op with the rest (avg and premulsum
 * add, then scale); the callers have turned FT_REDOP_COUNT away.
 */
#define BY_OP_(fn, ...)                                       \
	(op == FT_REDOP_PROD ? fn##_prod :                    \
	 op == FT_REDOP_MAX  ? fn##_max :                     \
	 op == FT_REDOP_MIN  ? fn##_min :                     \
	                       fn##_sum)(__VA_ARGS__)

#define CASE2_(E, T)                                 \
	case FT_DTYPE_##E:                           \
		BY_OP_(red2_##E, dst, src, count);   \
		break;

void
ft__data_reduce(void *dst, const void *src, size_t count, enum ft_dtype t, enum ft_redop op)
{
	if ((unsigned)op >= FT_REDOP_COUNT)
		return;
	switch (t) {
		FOR_ALL_TYPES(CASE2_)
	case FT_DTYPE_COUNT:
		break;
	}
}

#define CASE3_(E, T)                                 \
	case FT_DTYPE_##E:                           \
		BY_OP_(red3_##E, dst, a, b, count);  \
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
	if ((unsigned)op >= FT_REDOP_COUNT)
		return;
	switch (t) {
		FOR_ALL_TYPES(CASE3_)
	case FT_DTYPE_COUNT:
		break;
	}
}

void
ft__data_premul(void *dst, const void *src, size_t count, enum ft_dtype t, uint32_t rank)
{
	unsigned k = premul_scalar(rank);
	size_t i;

	switch (t) {
#define SCALE_(E, T)                                                    \
	case FT_DTYPE_##E:                                              \
		for (i = 0; i < count; i++)                             \
			((T *)dst)[i] = (T)(((const T *)src)[i] * (T)k); \
		break;
		FOR_TYPES(SCALE_)
#undef SCALE_
	case FT_DTYPE_HALF:
		for (i = 0; i < count; i++)
			((uint16_t *)dst)[i] = ft__half_from_float(
			        ft__half_to_float(((const uint16_t *)src)[i]) * (float)k);
		break;
	case FT_DTYPE_BFLOAT16:
		for (i = 0; i < count; i++)
			((uint16_t *)dst)[i] = ft__bf16_from_float(
			        ft__bf16_to_float(((const uint16_t *)src)[i]) * (float)k);
		break;
	case FT_DTYPE_COUNT:
		break;
	}
}

void
ft__data_premul_scalar(void *out, enum ft_dtype t, uint32_t rank)
{
	/* a 1 of the type (every fill value is exact in every type), then scaled */
	switch (t) {
#define ONE_(E, T)                \
	case FT_DTYPE_##E:        \
		*(T *)out = (T)1; \
		break;
		FOR_TYPES(ONE_)
#undef ONE_
	case FT_DTYPE_HALF:
		*(uint16_t *)out = ft__half_from_float(1.0f);
		break;
	case FT_DTYPE_BFLOAT16:
		*(uint16_t *)out = ft__bf16_from_float(1.0f);
		break;
	case FT_DTYPE_COUNT:
		return;
	}
	ft__data_premul(out, out, 1, t, rank);
}

void
ft__data_divide(void *buf, size_t count, enum ft_dtype t, uint32_t nranks)
{
	size_t i;

	if (nranks == 0)
		return;
	switch (t) {
#define DIV_(E, T)                                                            \
	case FT_DTYPE_##E:                                                    \
		for (i = 0; i < count; i++)                                   \
			((T *)buf)[i] = (T)(((T *)buf)[i] / (T)nranks);      \
		break;
		FOR_TYPES(DIV_)
#undef DIV_
	case FT_DTYPE_HALF:
		for (i = 0; i < count; i++)
			((uint16_t *)buf)[i] = ft__half_from_float(
			        ft__half_to_float(((uint16_t *)buf)[i]) / (float)nranks);
		break;
	case FT_DTYPE_BFLOAT16:
		for (i = 0; i < count; i++)
			((uint16_t *)buf)[i] = ft__bf16_from_float(
			        ft__bf16_to_float(((uint16_t *)buf)[i]) / (float)nranks);
		break;
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
		uint16_t h;
	} acc, v;
	uint32_t r;

	ft__data_fill(&acc, 1, t, 0, i);
	if (op == FT_REDOP_MULSUM)
		ft__data_premul(&acc, &acc, 1, t, 0);
	for (r = 1; r < nranks; r++) {
		ft__data_fill(&v, 1, t, r, i);
		if (op == FT_REDOP_MULSUM)
			ft__data_premul(&v, &v, 1, t, r);
		ft__data_reduce(&acc, &v, 1, t, op);
	}
	if (op == FT_REDOP_AVG)
		ft__data_divide(&acc, 1, t, nranks);
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
	case FT_DTYPE_HALF:
		return ft__half_to_float(acc.h);
	case FT_DTYPE_BFLOAT16:
		return ft__bf16_to_float(acc.h);
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
	case FT_DTYPE_HALF:
		return ft__half_to_float(((const uint16_t *)buf)[i]);
	case FT_DTYPE_BFLOAT16:
		return ft__bf16_to_float(((const uint16_t *)buf)[i]);
	case FT_DTYPE_COUNT:
		break;
	}
	return 0;
}

static bool
same(double got, double want, enum ft_dtype t)
{
	if (got == want) /* also an Inf (a 16-bit product overflows) equal to its expectation */
		return true;
	if (t == FT_DTYPE_HALF || t == FT_DTYPE_BFLOAT16)
		return fabs(got - want) <= 1e-2 * fabs(want);
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
