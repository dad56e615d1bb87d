/* SPDX-License-Identifier: MIT */
/*
 * banned.h - functions that have no place in fabtune's code, turned into
 * compile errors (git's banned.h). Use ft_strlcpy, ft_strbuf_addf,
 * ft_parse_u64/ft_parse_double and ft_rng instead.
 */
#ifndef FT_BANNED_H
#define FT_BANNED_H

#define FT_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) FT_BANNED(strcpy)
#undef strcat
#define strcat(x, y) FT_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) FT_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) FT_BANNED(strncat)
#undef sprintf
#define sprintf(...) FT_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) FT_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) FT_BANNED(strtok)
#undef gets
#define gets(x) FT_BANNED(gets)
#undef atoi
#define atoi(x) FT_BANNED(atoi)
#undef atol
#define atol(x) FT_BANNED(atol)
#undef atof
#define atof(x) FT_BANNED(atof)
#undef rand
#define rand(...) FT_BANNED(rand)
#undef srand
#define srand(x) FT_BANNED(srand)
#undef gmtime
#define gmtime(x) FT_BANNED(gmtime)
#undef localtime
#define localtime(x) FT_BANNED(localtime)
#undef ctime
#define ctime(x) FT_BANNED(ctime)

#endif
