/* SPDX-License-Identifier: MIT */
/*
 * fabtune/rng.h - the deterministic random number generator.
 *
 * xoshiro256** (Blackman and Vigna, 2018) seeded through SplitMix64. Every
 * entity that draws numbers (a flow, a switch's ECMP salt, a workload
 * generator) derives its own stream from (run seed, entity kind, entity id),
 * so adding an entity never changes the draws of another. The same seed gives
 * the same sequence on every platform. Never use rand() or time() instead.
 */
#ifndef FABTUNE_RNG_H
#define FABTUNE_RNG_H

#include <stdint.h>

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ft_rng {
	uint64_t s[4];
};

/* Seed the stream (seed, stream); stream mixes entity kind and id. */
FT_API void ft_rng_seed(struct ft_rng *r, uint64_t seed, uint64_t stream);
FT_API uint64_t ft_rng_u64(struct ft_rng *r);
/* Uniform in [0, 1) with 53 bits. */
FT_API double ft_rng_unit(struct ft_rng *r);
/* Uniform in [0, n), unbiased (Lemire's method); 0 when n == 0. */
FT_API uint64_t ft_rng_below(struct ft_rng *r, uint64_t n);
/* Fisher-Yates shuffle of @n uint32_t. */
FT_API void ft_rng_shuffle_u32(struct ft_rng *r, uint32_t *v, uint32_t n);
/* A stream id from an entity kind and id (SplitMix64 finalizer of both). */
FT_API uint64_t ft_rng_stream(uint32_t kind, uint64_t id);
/* The SplitMix64 finalizer: a specified 64-bit mix, used by ECMP hashes. */
FT_API uint64_t ft_mix64(uint64_t x);

#ifdef __cplusplus
}
#endif
#endif
