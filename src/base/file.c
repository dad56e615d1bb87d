/* SPDX-License-Identifier: MIT */
/*
 * base/file.c - the one bounded file reader and the one safe file writer.
 *
 * Reading: only regular files are read (a FIFO would block the open, a device
 * such as /dev/zero never ends), opened without blocking and checked with
 * fstat() before the first byte, and never more than ft_input_max_bytes()
 * (FABTUNE_MAX_INPUT, default 1 GiB) are read: a file that grows while it is
 * read is cut off with an error, not silently.
 *
 * Writing: the content goes to a new temporary file in the target's directory,
 * created with O_CREAT|O_EXCL|O_NOFOLLOW (a planted file or symlink of that
 * name is never opened), is fsync()ed, and then renamed over the target (and
 * the folder fsync()ed), so a reader sees the old file or the new one, never
 * half of one. A target that exists and is not a regular file (a symlink,
 * FIFO, device node, socket or directory) is refused rather than replaced; the
 * command line writes to standard output on purpose for "-" and /dev/stdout.
 *
 * Reading under a root: ft_file_open_under() opens a path of a captured tree
 * (probe --root) as if the tree were "/", so no symlink leads out of it.
 */
#include "internal.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <fabtune/units.h>

/* Default cap on one input file, bytes. */
#define INPUT_MAX_DEFAULT ((uint64_t)1 << 30)

uint64_t
ft_input_max_bytes(void)
{
	const char *s = getenv("FABTUNE_MAX_INPUT");
	uint64_t v;

	if (s && *s && ft_parse_size(s, &v, NULL) == 0 && v > 0)
		return v;
	return INPUT_MAX_DEFAULT;
}

const char *
ft_file_type_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "regular file";
	case S_IFDIR:
		return "directory";
	case S_IFIFO:
		return "FIFO";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	case S_IFSOCK:
		return "socket";
	case S_IFLNK:
		return "symbolic link";
	default:
		return "special file";
	}
}

static int
open_error(const char *path, int e, struct ft_error *err)
{
	/* "-" is no file here: inputs are read whole from regular files, never a pipe */
	if (e == ENOENT && strcmp(path, "-") == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "-: standard input is not read; save the output to a file "
		                    "and give its path");
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return ft_error_set(err, FT_ENOENT, "%s: %s", path, strerror(e));
	case EACCES:
	case EPERM:
	case EISDIR:
	case ELOOP:
	case ENAMETOOLONG:
		return ft_error_set(err, FT_EINVAL, "%s: cannot read: %s", path, strerror(e));
	default:
		return ft_error_set(err, FT_EIO, "%s: cannot read: %s", path, strerror(e));
	}
}

int
ft_file_open_input(const char *path, uint64_t *size, struct ft_error *err)
{
	struct stat st;
	uint64_t max = ft_input_max_bytes();
	char got[48], lim[48];
	int fd, flags;

	/* O_NONBLOCK: opening a FIFO with no writer must not block (we refuse it below) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return open_error(path, errno, err);
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return open_error(path, e, err);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ft_error_set(err, FT_EINVAL,
		                    "%s: is a %s, not a regular file; only regular files are read",
		                    path, ft_file_type_name((unsigned)st.st_mode));
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return ft_error_set(err, FT_ERANGE,
		                    "%s: file of %s is larger than the input limit of %s "
		                    "(FABTUNE_MAX_INPUT)",
		                    path, ft_format_nbytes((uint64_t)st.st_size, got, sizeof(got)),
		                    ft_format_nbytes(max, lim, sizeof(lim)));
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

int
ft_strbuf_read_file(struct ft_strbuf *sb, const char *path, struct ft_error *err)
{
	uint64_t max = ft_input_max_bytes(), total = 0, size = 0;
	char chunk[65536], lim[48];
	ssize_t n;
	int fd;

	fd = ft_file_open_input(path, &size, err);
	if (fd < 0)
		return fd;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (uint64_t)n;
		if (total > max) {
			close(fd);
			return ft_error_set(err, FT_ERANGE,
			                    "%s: more than the input limit of %s (FABTUNE_MAX_INPUT)",
			                    path, ft_format_nbytes(max, lim, sizeof(lim)));
		}
		ft_strbuf_add(sb, chunk, (size_t)n);
		if (sb->oom) {
			close(fd);
			return ft_error_set(err, FT_ENOMEM,
			                    "%s: out of memory after %" PRIu64 " bytes", path,
			                    total);
		}
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		return ft_error_set(err, e == EISDIR ? FT_EINVAL : FT_EIO, "%s: cannot read: %s",
		                    path, strerror(e));
	}
	close(fd);
	return 0;
}

/* ---- reading inside a captured tree ----------------------------------- */

/* Without openat2(): resolve @path and check it is still under @root. */
static int
open_checked(const char *root, const char *path, int flags)
{
	char *rroot = realpath(root, NULL), *rpath = realpath(path, NULL);
	size_t n;
	int fd = -1;

	if (!rroot || !rpath) {
		if (!rpath)
			errno = ENOENT;
		goto out;
	}
	n = strlen(rroot);
	if (strncmp(rpath, rroot, n) != 0 || (rpath[n] != '/' && rpath[n] != '\0' && n > 1)) {
		errno = EXDEV;
		goto out;
	}
	fd = open(rpath, flags);
out:
	free(rroot);
	free(rpath);
	return fd;
}

int
ft_file_open_under(const char *root, const char *path, bool dir, struct ft_error *err)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (dir ? O_DIRECTORY : 0);
	struct stat st;
	int fd, fl;

	if (!root || !root[0] || strcmp(root, "/") == 0) {
		fd = open(path, flags);
	} else {
		size_t n = strlen(root);
		const char *rel = path + n;
		struct open_how how = { .flags = (uint64_t)flags,
			                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
		int rootfd;

		if (strncmp(path, root, n) != 0 || (*rel && *rel != '/' && root[n - 1] != '/'))
			return ft_error_set(err, FT_EINVAL, "%s: not under the root %s", path,
			                    root);
		while (*rel == '/')
			rel++;
		rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0)
			return ft_error_set(err, errno == ENOENT ? FT_ENOENT : FT_EIO, "%s: %s",
			                    root, strerror(errno));
		/*
		 * symlinks, absolute ones included, resolve as if @root were "/". With
		 * RESOLVE_IN_ROOT the kernel answers EAGAIN when a rename or mount
		 * anywhere raced with the lookup (openat2(2)): try again, a bounded
		 * number of times, rather than report a present file as absent.
		 */
		for (int tries = 0; tries < 100; tries++) {
			fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd < 0 && (errno == ENOSYS || errno == EPERM))
			fd = open_checked(root, path, flags);
		close(rootfd);
		if (fd < 0 && errno == EXDEV)
			return ft_error_set(err, FT_EINVAL, "%s: leads out of the root %s", path,
			                    root);
	}
	if (fd < 0)
		return ft_error_set(err, errno == ENOENT || errno == ENOTDIR ? FT_ENOENT : FT_EIO,
		                    "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		close(fd);
		return ft_error_set(err, FT_EINVAL, "%s: is a %s, not a %s", path,
		                    ft_file_type_name((unsigned)st.st_mode),
		                    dir ? "directory" : "regular file");
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* ---- writer -------------------------------------------------------------- */

static int
write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Tests only: when non-zero, the first temporary name's salt, in place of one
 * drawn from the clock and the pid, so that a test can plant files and
 * symlinks at the exact names the writer will try (tests/unit/test_base.c).
 */
extern uint64_t ft__file_temp_salt;
uint64_t ft__file_temp_salt;

/*
 * Create an unused temporary name beside @path; @tmp gets the name. The
 * names tried are "DIR/.BASE.XXXXXX.tmp", XXXXXX the low 24 bits of salt +
 * attempt * 7919 in hex, for up to 100 attempts.
 */
static int
create_temp(const char *path, char *tmp, size_t cap, mode_t mode, struct ft_error *err)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	struct timespec ts;
	unsigned attempt;
	uint64_t first;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	first = ft__file_temp_salt ? ft__file_temp_salt :
	                             (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 20);
	for (attempt = 0; attempt < 100; attempt++) {
		uint64_t salt = first + attempt * 7919u;
		int n = snprintf(tmp, cap, "%.*s.%s.%06" PRIx64 ".tmp", (int)dirlen, path, base,
		                 salt & 0xffffff);
		int fd;

		if (n < 0 || (size_t)n >= cap)
			return ft_error_set(err, FT_EINVAL, "%s: path too long", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return ft_error_set(err,
			                    errno == EACCES || errno == EROFS ? FT_EINVAL : FT_EIO,
			                    "%s: cannot write: %s", path, strerror(errno));
	}
	return ft_error_set(err, FT_EIO, "%s: cannot create a temporary file beside it", path);
}

/* Make the rename itself durable: fsync the folder that holds @path (best effort). */
static void
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd;

	if (!slash)
		ft_strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		ft_strlcpy(dir, "/", sizeof(dir));
	else if ((size_t)(slash - path) < sizeof(dir))
		ft_strlcpy(dir, path, (size_t)(slash - path) + 1);
	else
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int
ft_file_write(const char *path, const void *data, size_t len, struct ft_error *err)
{
	char tmp[4096];
	struct stat st;
	mode_t mode = 0666;
	int fd, rc;

	if (!path || !*path)
		return ft_error_set(err, FT_EINVAL, "no output file given");
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return ft_error_set(
			        err, FT_EINVAL,
			        "%s: is a %s; refusing to replace it (give a regular file, "
			        "or - for standard output)",
			        path, ft_file_type_name((unsigned)st.st_mode));
		mode = st.st_mode & 07777;
	} else if (errno != ENOENT) {
		return ft_error_set(err, FT_EIO, "%s: cannot write: %s", path, strerror(errno));
	}
	fd = create_temp(path, tmp, sizeof(tmp), mode, err);
	if (fd < 0)
		return fd;
	/* an existing target keeps its permissions, whatever the umask */
	if (mode != 0666)
		(void)fchmod(fd, mode);
	if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		rc = ft_error_set(err, FT_EIO, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		return rc;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		rc = ft_error_set(err, FT_EIO, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return rc;
	}
	sync_dir(path);
	return 0;
}

int
ft__with_file_text(const char *path, ft__text_fn *fn, void *ctx, struct ft_error *err)
{
	struct ft_strbuf sb;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = fn(sb.buf, sb.len, path, ctx, err);
	ft_strbuf_release(&sb);
	return rc;
}
