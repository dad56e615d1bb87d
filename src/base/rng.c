/* SPDX-License-Identifier: MIT */
/*
 * base/rng.c - xoshiro256** seeded through SplitMix64.
 *
 * Reference: D. Blackman and S. Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 47(4), 2021. Bounded draws use Lemire's
 * multiply-and-reject method (ACM TOMACS 29(1), 2019).
 */
#include "internal.h"

#include <fabtune/rng.h>

uint64_t
ft_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t
splitmix_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return ft_mix64(*state);
}

uint64_t
ft_rng_stream(uint32_t kind, uint64_t id)
{
	return ft_mix64(((uint64_t)kind << 48) ^ ft_mix64(id + 0x632be59bd9b4e019ULL));
}

void
ft_rng_seed(struct ft_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t st = seed ^ ft_mix64(stream ^ 0xd1b54a32d192ed03ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix_next(&st);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
ft_rng_u64(struct ft_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double
ft_rng_unit(struct ft_rng *r)
{
	return (double)(ft_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t
ft_rng_below(struct ft_rng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t lo, threshold;

	if (n == 0)
		return 0;
	m = (unsigned __int128)ft_rng_u64(r) * n;
	lo = (uint64_t)m;
	if (lo < n) {
		threshold = (0 - n) % n;
		while (lo < threshold) {
			m = (unsigned __int128)ft_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void
ft_rng_shuffle_u32(struct ft_rng *r, uint32_t *v, uint32_t n)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = (uint32_t)ft_rng_below(r, i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}
