/* SPDX-License-Identifier: MIT */
/*
 * bench/sock.c - TCP sockets where every blocking step has a deadline.
 *
 * Used by the bootstrap and the tcp transport: listen, connect with retries
 * (rank 0 may not listen yet), accept, send/receive everything, each bounded
 * by poll() timeouts and an external stop flag, plus interface selection
 * with NCCL_SOCKET_IFNAME's syntax (kb: ENV-SOCKET_IFNAME).
 */
#include "bench_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

int
ft__sock_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int
ms_left(double deadline)
{
	double left = deadline - ft__now();

	if (left <= 0)
		return 0;
	return left > 0.1 ? 100 : (int)(left * 1000) + 1;
}

static int
resolve(const char *addr, uint16_t port, struct sockaddr_storage *ss, socklen_t *sl,
        struct ft_error *err)
{
	struct addrinfo hints, *res = NULL;
	char serv[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (addr && *addr ? 0 : AI_PASSIVE);
	snprintf(serv, sizeof(serv), "%u", (unsigned)port);
	rc = getaddrinfo(addr && *addr ? addr : NULL, serv, &hints, &res);
	if (rc != 0 || !res)
		return ft_error_set(err, FT_ENOENT, "address '%s': %s", addr ? addr : "",
		                    gai_strerror(rc));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int
ft__sock_listen(const char *addr, uint16_t port, int *fd_out, uint16_t *port_out,
                struct ft_error *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, rc;

	*fd_out = -1;
	rc = resolve(addr, port, &ss, &sl, err);
	if (rc < 0)
		return rc;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ft_error_set(err, FT_EIO, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 512) < 0) {
		/* a port given (not 0, which the kernel picks free) that another
		   socket holds: say so, for the user to pick another */
		if (errno == EADDRINUSE && port)
			rc = ft_error_set(err, FT_EIO,
			                  "listen on %s:%u: %s: another program (or a run "
			                  "still ending) holds that port; choose another",
			                  addr && *addr ? addr : "*", (unsigned)port,
			                  strerror(errno));
		else
			rc = ft_error_set(err, FT_EIO, "listen on %s:%u: %s",
			                  addr && *addr ? addr : "*", (unsigned)port,
			                  strerror(errno));
		close(fd);
		return rc;
	}
	if (port_out) {
		sl = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &sl);
		*port_out =
		        ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		                                         ((struct sockaddr_in *)&ss)->sin_port);
	}
	*fd_out = fd;
	return 0;
}

int
ft__sock_connect(const char *addr, uint16_t port, double deadline, const char *what,
                 volatile sig_atomic_t *stop, int *fd_out, struct ft_error *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int rc, last = 0;

	*fd_out = -1;
	rc = resolve(addr, port, &ss, &sl, err);
	if (rc < 0)
		return rc;
	for (;;) {
		struct pollfd p;
		int fd, soerr = 0;
		socklen_t el = sizeof(soerr);

		if (stop && *stop)
			return ft_error_set(err, FT_EINTR, "interrupted while connecting to %s",
			                    what);
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return ft_error_set(err, FT_EIO, "socket: %s", strerror(errno));
		rc = connect(fd, (struct sockaddr *)&ss, sl);
		if (rc < 0 && errno == EINPROGRESS) {
			p.fd = fd;
			p.events = POLLOUT;
			p.revents = 0;
			while ((rc = poll(&p, 1, ms_left(deadline))) == 0 && ft__now() < deadline &&
			       !(stop && *stop))
				;
			if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) == 0 &&
			    soerr == 0)
				rc = 0;
			else {
				last = soerr ? soerr : ETIMEDOUT;
				rc = -1;
			}
		} else if (rc < 0) {
			last = errno;
		}
		if (rc == 0) {
			int fl = fcntl(fd, F_GETFL);

			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
			*fd_out = fd;
			return 0;
		}
		close(fd);
		if (ft__now() >= deadline)
			return ft_error_set(err, FT_ETIMEDOUT, "cannot reach %s at %s%s%s:%u: %s",
			                    what, strchr(addr, ':') ? "[" : "", addr,
			                    strchr(addr, ':') ? "]" : "", (unsigned)port,
			                    strerror(last));
		/* not listening yet, or refused: retry shortly */
		poll(NULL, 0, 50);
	}
}

int
ft__sock_accept(int lfd, double deadline, volatile sig_atomic_t *stop, int *fd_out,
                struct ft_error *err)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	*fd_out = -1;
	for (;;) {
		int rc, fd;

		if (stop && *stop)
			return ft_error_set(err, FT_EINTR, "interrupted while waiting for ranks");
		if (ft__now() >= deadline)
			return ft_error_set(err, FT_ETIMEDOUT, "no connection came");
		rc = poll(&p, 1, ms_left(deadline));
		if (rc <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			*fd_out = fd;
			return 0;
		}
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			return ft_error_set(err, FT_EIO, "accept: %s", strerror(errno));
	}
}

static int
xfer_all(int fd, void *buf, size_t len, double deadline, const char *who,
         volatile sig_atomic_t *stop, bool sending, struct ft_error *err)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		struct pollfd pf = { .fd = fd, .events = sending ? POLLOUT : POLLIN };
		ssize_t n;
		int rc;

		if (stop && *stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
		rc = poll(&pf, 1, ms_left(deadline));
		if (rc == 0) {
			if (ft__now() >= deadline)
				return ft_error_set(err, FT_ETIMEDOUT,
				                    "%s stopped answering (timed out)", who);
			continue;
		}
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return ft_error_set(err, FT_EIO, "poll: %s", strerror(errno));
		}
		if (sending)
			n = send(fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			n = recv(fd, p + done, len - done, MSG_DONTWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return ft_error_set(err, FT_EPEER, "%s closed the connection (did it die?)",
			                    who);
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			continue;
		return ft_error_set(err, FT_EPEER, "%s: %s", who, strerror(errno));
	}
	return 0;
}

int
ft__sock_send_all(int fd, const void *buf, size_t len, double deadline, const char *who,
                  volatile sig_atomic_t *stop, struct ft_error *err)
{
	return xfer_all(fd, (void *)buf, len, deadline, who, stop, true, err);
}

int
ft__sock_recv_all(int fd, void *buf, size_t len, double deadline, const char *who,
                  volatile sig_atomic_t *stop, struct ft_error *err)
{
	return xfer_all(fd, buf, len, deadline, who, stop, false, err);
}

int
ft__parse_hostport(const char *s, char *host, size_t hlen, uint16_t *port, struct ft_error *err)
{
	const char *colon;
	uint64_t v;
	size_t n;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':')
			goto bad;
		n = (size_t)(end - s - 1);
		colon = end + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			goto bad;
		n = (size_t)(colon - s);
	}
	if (n == 0 || n >= hlen)
		goto bad;
	memcpy(host, s, n);
	host[n] = '\0';
	if (ft_parse_u64(colon + 1, &v) < 0 || v == 0 || v > 65535)
		goto bad;
	*port = (uint16_t)v;
	return 0;
bad:
	return ft_error_set(err, FT_EINVAL, "--bootstrap: expected ADDR:PORT, got '%s'", s);
}

bool
ft_bench_ifname_match(const char *spec, const char *ifname)
{
	bool exclude = false, exact = false, hit = false;
	const char *p;

	if (!spec || !*spec)
		return true;
	if (*spec == '^') {
		exclude = true;
		spec++;
	}
	if (*spec == '=') {
		exact = true;
		spec++;
	}
	for (p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 0 && (exact ? strlen(ifname) == n && strncmp(ifname, p, n) == 0 :
		                      strncmp(ifname, p, n) == 0))
			hit = true;
		p += n;
		if (*p == ',')
			p++;
	}
	return exclude ? !hit : hit;
}

int
ft__pick_address(const char *spec, char *addr, size_t alen, char *ifname, size_t ilen,
                 struct ft_error *err)
{
	struct ifaddrs *ifa = NULL, *i;
	int pass;

	if (getifaddrs(&ifa) < 0)
		return ft_error_set(err, FT_EIO, "getifaddrs: %s", strerror(errno));
	/*
	 * Like NCCL: without a spec, skip docker and loopback interfaces first
	 * and fall back to loopback (kb: ENV-SOCKET_IFNAME). IPv4 before IPv6.
	 */
	for (pass = 0; pass < 4; pass++) {
		for (i = ifa; i; i = i->ifa_next) {
			bool lo, v4;

			if (!i->ifa_addr || !(i->ifa_flags & IFF_UP))
				continue;
			if (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)
				continue;
			lo = (i->ifa_flags & IFF_LOOPBACK) != 0;
			v4 = i->ifa_addr->sa_family == AF_INET;
			if (v4 != (pass % 2 == 0))
				continue;
			if (spec && *spec) {
				if (!ft_bench_ifname_match(spec, i->ifa_name) || pass >= 2)
					continue;
			} else if ((pass < 2) == (lo || strncmp(i->ifa_name, "docker", 6) == 0)) {
				continue;
			}
			if (!v4 &&
			    IN6_IS_ADDR_LINKLOCAL(
			            &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr))
				continue;
			if (getnameinfo(i->ifa_addr,
			                v4 ? sizeof(struct sockaddr_in) :
			                     sizeof(struct sockaddr_in6),
			                addr, (socklen_t)alen, NULL, 0, NI_NUMERICHOST) != 0)
				continue;
			ft_strlcpy(ifname, i->ifa_name, ilen);
			freeifaddrs(ifa);
			return 0;
		}
	}
	freeifaddrs(ifa);
	return ft_error_set(err, FT_ENOENT, "--ifname '%s': no interface with an address matches",
	                    spec ? spec : "");
}
