/* SPDX-License-Identifier: MIT */
/*
 * fabtune/error.h - the one error convention of libfabtune.
 *
 * Every fallible function returns int: 0 on success or a negative FT_E* code.
 * An optional, caller-owned struct ft_error carries a human message that names
 * the place (file:line:col, or host/device/port), the field, what was expected
 * and what was found. The first error wins; callers add context by prefixing.
 */
#ifndef FABTUNE_ERROR_H
#define FABTUNE_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_API		   __attribute__((visibility("default")))
#define FT_MUST_CHECK	   __attribute__((warn_unused_result))
#define FT_PRINTF(fmt, va) __attribute__((format(printf, fmt, va)))

/* Codes are never renumbered: new ones go at the end. */
#define FT_ERROR_MAP(X)                                                                            \
	X(EINVAL, -1, "invalid argument")                                                          \
	X(ENOMEM, -2, "out of memory")                                                             \
	X(EPARSE, -3, "malformed input")                                                           \
	X(ERANGE, -4, "value out of range")                                                        \
	X(ENOENT, -5, "no such file, host or device")                                              \
	X(ENOTSUP, -6, "not supported by this build or device")                                    \
	X(EIO, -7, "I/O error")                                                                    \
	X(ETIMEDOUT, -8, "timed out")                                                              \
	X(EARCHIVE, -9, "archive (SQLite) error")                                                  \
	X(EMPI, -10, "MPI error")                                                                  \
	X(EPEER, -11, "peer failed or stopped answering")                                          \
	X(EINTR, -12, "interrupted")

enum ft_errno {
	FT_OK = 0,
#define FT_ERRNO_ENUM_(name, value, msg) FT_##name = (value),
	FT_ERROR_MAP(FT_ERRNO_ENUM_)
#undef FT_ERRNO_ENUM_
};

/* Size of the message buffer in struct ft_error, bytes. */
#define FT_ERROR_MSG_MAX 512

struct ft_error {
	int code;		    /* 0 or a negative FT_E* code */
	char msg[FT_ERROR_MSG_MAX]; /* human message, no trailing newline */
};

/* Name of a code ("EPARSE") and its generic description. Never NULL. */
FT_API const char *ft_err_name(int code);
FT_API const char *ft_strerror(int code);

/* Reset @err to "no error". NULL-safe. */
FT_API void ft_error_clear(struct ft_error *err);

/*
 * Record an error and return @code, so that `return ft_error_set(...)` reads
 * as one step. When @err already holds an error it is kept (the first error
 * wins). NULL-safe.
 */
FT_API int ft_error_set(struct ft_error *err, int code, const char *fmt, ...) FT_PRINTF(3, 4);
FT_API int ft_error_setv(struct ft_error *err, int code, const char *fmt, va_list ap)
	FT_PRINTF(3, 0);

/* Prefix the recorded message with context ("scenario a.yaml: "). NULL-safe. */
FT_API void ft_error_prefix(struct ft_error *err, const char *fmt, ...) FT_PRINTF(2, 3);

/* The message of @err, or the generic text of @code when @err holds none. */
FT_API const char *ft_error_msg(const struct ft_error *err, int code);

#ifdef __cplusplus
}
#endif
#endif
