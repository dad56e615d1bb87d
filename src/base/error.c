/* SPDX-License-Identifier: MIT */
/*
 * base/error.c - error codes, names and messages (see fabtune/error.h).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include <fabtune/version.h>

/* Every code with its name and message, 0 first (FT_ERROR_MAP). */
static const struct {
	int code;
	const char *name, *msg;
} codes[] = {
	{ 0, "OK", "success" },
#define ROW_(n, v, m) { FT_##n, #n, m },
	FT_ERROR_MAP(ROW_)
#undef ROW_
};

static int
code_index(int code)
{
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(codes); i++)
		if (codes[i].code == code)
			return (int)i;
	return -1;
}

const char *
ft_err_name(int code)
{
	int i = code_index(code);

	return i < 0 ? "EUNKNOWN" : codes[i].name;
}

const char *
ft_strerror(int code)
{
	int i = code_index(code);

	return i < 0 ? "unknown error" : codes[i].msg;
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
