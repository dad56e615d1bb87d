/* SPDX-License-Identifier: MIT */
/*
 * base/error.c - error codes, names and messages (see fabtune/error.h).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include <fabtune/version.h>

const char *
ft_err_name(int code)
{
	switch (code) {
	case 0:
		return "OK";
#define NAME_(n, v, m)                                                                             \
	case FT_##n:                                                                               \
		return #n;
		FT_ERROR_MAP(NAME_)
#undef NAME_
	}
	return "EUNKNOWN";
}

const char *
ft_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
#define MSG_(n, v, m)                                                                              \
	case FT_##n:                                                                               \
		return m;
		FT_ERROR_MAP(MSG_)
#undef MSG_
	}
	return "unknown error";
}

void
ft_error_clear(struct ft_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int
ft_error_setv(struct ft_error *err, int code, const char *fmt, va_list ap)
{
	if (!err || err->code != 0)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int
ft_error_set(struct ft_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ft_error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void
ft_error_prefix(struct ft_error *err, const char *fmt, ...)
{
	char prefix[FT_ERROR_MSG_MAX];
	struct ft_strbuf joined;
	va_list ap;

	if (!err || err->code == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	ft_strbuf_init(&joined);
	ft_strbuf_adds(&joined, prefix);
	ft_strbuf_adds(&joined, err->msg);
	ft_strlcpy(err->msg, joined.buf, sizeof(err->msg));
	ft_strbuf_release(&joined);
}

const char *
ft_error_msg(const struct ft_error *err, int code)
{
	if (err && err->code != 0 && err->msg[0])
		return err->msg;
	return ft_strerror(code);
}

const char *
ft_version(void)
{
	return FT_VERSION;
}
