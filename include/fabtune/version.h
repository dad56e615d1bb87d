/* SPDX-License-Identifier: MIT */
/*
 * fabtune/version.h - library version.
 */
#ifndef FABTUNE_VERSION_H
#define FABTUNE_VERSION_H

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0" */
FT_API const char *ft_version(void);

#ifdef __cplusplus
}
#endif
#endif
