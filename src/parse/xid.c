/* SPDX-License-Identifier: MIT */
/*
 * parse/xid.c - GPU error events in a kernel log (dmesg, journalctl -k,
 * /var/log/syslog or messages): the NVIDIA driver's Xid lines and the
 * NVSwitch driver's SXid lines.
 *
 *   "NVRM: Xid (PCI:0000:b3:00): 79, pid=1234, name=python, GPU has fallen off the bus."
 *   "NVRM: Xid (0000:01:00): 3, C 00000005 SC 00000007 M 00001ffc Data ffffffff"
 *   "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 ..."
 *
 * Drivers that lose a GPU without an Xid line say "NVRM: GPU at PCI:... has
 * fallen off the bus" or "NVRM: The NVIDIA GPU 0000:b3:00.0 ... fallen off
 * the bus": both are read as Xid 79. Keys: gpu.xid and gpu.sxid (num: the
 * code, device: the PCI address, str: the driver's text after the code). The
 * host comes from a syslog/journal prefix ("Jan 18 11:38:05 node1 kernel:")
 * when there is one. The kernel's line on a device's PCIe link ("63.008 Gb/s
 * available PCIe bandwidth (8.0 GT/s PCIe x8 link)", with "limited by ... (capable
 * of ...)" when it trained below its capability) gives pcie.link.* for the
 * device, so a NIC or GPU trained down is seen in a plain dmesg. The mlx5
 * driver's lines on a ConnectX NIC that failed to come up, lost its firmware,
 * its module or its link give nic.* (mlx5_line below).
 */
#include "parse_int.h"

/* "MMM dd hh:mm:ss HOST kernel:" or "ISO-TIME HOST kernel:": the host, else empty. */
static void
syslog_host(struct ft__pctx *c, struct ft__span s)
{
	const char *k = ft__find(s, " kernel:");
	const char *p;

	c->host[0] = '\0';
	if (!k)
		return;
	p = k;
	while (p > s.p && p[-1] != ' ')
		p--;
	if (p < k)
		ft__copy(c->host, sizeof(c->host), (struct ft__span){ p, (size_t)(k - p) });
}

/* "0000:01:00.0" -> "0000:01:00": Xid lines name the GPU without the PCI function. */
static struct ft__span
no_function(struct ft__span d)
{
	if (d.n > 2 && d.p[d.n - 2] == '.' && d.p[d.n - 1] >= '0' && d.p[d.n - 1] <= '7')
		d.n -= 2;
	return d;
}

/* The PCI address inside "(PCI:0000:b3:00)" or "(0000:01:00)" after @at. */
static struct ft__span
pci_in_parens(struct ft__span s, const char *at)
{
	const char *open = memchr(at, '(', (size_t)(s.p + s.n - at));
	const char *close;

	if (!open)
		return FT__NOSTR;
	close = memchr(open, ')', (size_t)(s.p + s.n - open));
	if (!close)
		return FT__NOSTR;
	open++;
	if ((size_t)(close - open) > 4 && memcmp(open, "PCI:", 4) == 0)
		open += 4;
	return (struct ft__span){ open, (size_t)(close - open) };
}

/*
 * "NVRM: GPU at 0000:01:00.0 has fallen off the bus." (or the last line of the
 * multi-line form, whose address came on its first line): Xid 79.
 */
static void
xid_fallen(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	const char *g = ft__find(s, "GPU at ");
	struct ft__span dev = FT__NOSTR, r;

	if (g) {
		r = ft__skip(s, (size_t)(g - s.p) + 7);
		(void)ft__token(&r, &dev);
		if (dev.n > 4 && memcmp(dev.p, "PCI:", 4) == 0)
			dev = ft__skip(dev, 4);
		if (dev.n && dev.p[dev.n - 1] == ':')
			dev.n--;
		ft__copy(c->device, sizeof(c->device), no_function(dev));
	}
	syslog_host(c, s);
	c->port = c->rank = -1;
	ft__emit(c, line, "gpu.xid", true, 79, NULL, ft__span_c("GPU has fallen off the bus"));
}

/* "8.0 GT/s PCIe x16 link" at the start of @s: its speed (GT/s) and width; false when not that. */
static bool
link_words(struct ft__span s, double *gts, double *width)
{
	const char *x = ft__find(s, "PCIe x");
	struct ft__span rest;

	return ft__lead_dbl(s, gts, &rest) && ft__starts(ft__trim(rest), "GT/s") && x &&
	       ft__lead_dbl(ft__skip(s, (size_t)(x - s.p) + 6), width, NULL);
}

/*
 * The kernel's PCIe link line for a device (HOST-PCIE):
 *   "mlx5_core 0000:03:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)"
 *   "pci 0000:01:00.0: 7.876 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x1
 *    link at 0000:00:00.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)"
 * The first form is printed when the device gets all it can: the link is also its
 * capability. Keys pcie.link.speed_cur/_max (GT/s), width_cur/_max, device = the BDF.
 */
static bool
pcie_bandwidth(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	const char *at = ft__find(s, " Gb/s available PCIe bandwidth");
	const char *lim, *cap, *p;
	double cs, cw, ms, mw;
	struct ft__span dev;

	if (!at)
		return false;
	/* "... BDF: N Gb/s": back over the number and ": " to the BDF */
	p = at;
	while (p > s.p && p[-1] != ' ')
		p--;
	if (p - s.p < 3 || p[-1] != ' ' || p[-2] != ':')
		return false;
	dev.p = p - 2;
	while (dev.p > s.p && dev.p[-1] != ' ')
		dev.p--;
	dev.n = (size_t)(p - 2 - dev.p);
	lim = ft__find(s, "limited by ");
	cap = ft__find(s, "(capable of ");
	if (lim && cap) {
		const char *with = ft__find(ft__skip(s, (size_t)(cap - s.p)), " with ");

		if (!with || !link_words(ft__skip(s, (size_t)(lim - s.p) + 11), &cs, &cw) ||
		    !link_words(ft__skip(s, (size_t)(with - s.p) + 6), &ms, &mw))
			return false;
	} else {
		const char *open = memchr(at, '(', (size_t)(s.p + s.n - at));

		if (!open || !link_words(ft__skip(s, (size_t)(open - s.p) + 1), &cs, &cw))
			return false;
		ms = cs;
		mw = cw;
	}
	syslog_host(c, s);
	ft__copy(c->device, sizeof(c->device), dev);
	c->port = c->rank = -1;
	ft__emit_num(c, line, "pcie.link.speed_cur", cs, "GT/s");
	ft__emit_num(c, line, "pcie.link.width_cur", cw, "lanes");
	ft__emit_num(c, line, "pcie.link.speed_max", ms, "GT/s");
	ft__emit_num(c, line, "pcie.link.width_max", mw, "lanes");
	return true;
}

/* The span from @at to the end of @s. */
static struct ft__span
from(struct ft__span s, const char *at)
{
	return (struct ft__span){ at, (size_t)(s.p + s.n - at) };
}

/* The number after @word in @s ("error -16", "(27W)"), or false. */
static bool
num_after(struct ft__span s, const char *word, double *v)
{
	const char *at = ft__find(s, word);

	return at && ft__lead_dbl(ft__trim(from(s, at + strlen(word))), v, NULL);
}

/*
 * What the NIC's driver says, drivers/net/ethernet/mellanox/mlx5/core (mlx5_core):
 *   "mlx5_core 0000:41:00.0: poll_health:852:(pid 0): device's health compromised - reached miss count"
 *   "mlx5_core 0000:41:00.0 eth1: Link down"
 *   "mlx5_core: probe of 468b:00:02.0 failed with error -16"
 * @dev gets the BDF, @ifname the interface when the line names one, @msg the
 * message without the "function:line:(pid N): " the driver puts before it.
 */
static bool
mlx5_split(struct ft__span s, struct ft__span *dev, struct ft__span *ifname, struct ft__span *msg)
{
	const char *at = ft__find(s, "mlx5_core");
	struct ft__span r, tok, pid;
	const char *p;

	if (!at)
		return false;
	r = from(s, at + 9);
	*ifname = FT__NOSTR;
	if (ft__starts(r, ": probe of ")) {
		r = ft__skip(r, 11);
		if (!ft__token(&r, dev))
			return false;
		*msg = ft__trim(r);
		return true;
	}
	if (!ft__token(&r, &tok) || tok.n < 8 || !memchr(tok.p, ':', tok.n))
		return false;
	if (tok.p[tok.n - 1] == ':') {
		tok.n--;
	} else if (ft__token(&r, ifname) && ifname->n > 1 && ifname->p[ifname->n - 1] == ':') {
		ifname->n--;
	} else {
		return false;
	}
	*dev = tok;
	r = ft__trim(r);
	pid = r;
	p = ft__find(pid, "(pid ");
	if (p && (p = memchr(p, ')', (size_t)(r.p + r.n - p))) != NULL && p + 1 < r.p + r.n &&
	    p[1] == ':')
		r = ft__trim(from(r, p + 2));
	*msg = r;
	return true;
}

/*
 * The mlx5 driver's lines on a NIC that failed or lost its port (keys
 * nic.probe_failed, nic.fw_error, nic.cmd_error, nic.pcie_power, nic.module,
 * nic.link; device = the BDF). Formats from the driver's main.c (probe_one,
 * wait_fw_init), health.c (poll_health, print_health_info), cmd.c
 * (mlx5_cmd_out_err, wait_func), events.c (port_module, the PCIe power
 * event) and en_main.c (carrier), and the driver core's "probe of ...
 * failed with error" line.
 */
static bool
mlx5_line(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	struct ft__span dev, ifname, msg;
	const char *at;
	double v;

	if (!mlx5_split(s, &dev, &ifname, &msg))
		return false;
	syslog_host(c, s);
	ft__copy(c->device, sizeof(c->device), dev);
	c->port = c->rank = -1;
	if ((ft__find(msg, "failed with error") || ft__find(msg, "probe with driver")) &&
	    (num_after(msg, "failed with error code ", &v) ||
	     num_after(msg, "failed with error ", &v))) {
		ft__emit(c, line, "nic.probe_failed", true, v, NULL, msg);
	} else if (ft__find(msg, "health compromised") || ft__find(msg, "Fatal error ") ||
		   ft__find(msg, "Health issue observed") || ft__starts(msg, "synd 0x") ||
		   ft__find(msg, "pre-initializing state, aborting") ||
		   ft__find(msg, "FW initialization timeout") ||
		   ft__find(msg, "Failed initializing command interface") ||
		   ft__find(msg, "firmware version: 65535.65535.65535") ||
		   ft__find(msg, "Unable to respond to initialization segment")) {
		ft__emit_str(c, line, "nic.fw_error", msg);
	} else if (ft__find(s, "mlx5_cmd_out_err") || ft__find(msg, "Will cause a leak of a command") ||
		   ft__find(msg, "enable hca failed")) {
		if (num_after(msg, "err(", &v))
			ft__emit(c, line, "nic.cmd_error", true, v, NULL, msg);
		else
			ft__emit_str(c, line, "nic.cmd_error", msg);
	} else if ((at = ft__find(msg, "power on the PCIe slot")) != NULL ||
		   (at = ft__find(msg, "advertised sufficient power")) != NULL) {
		bool low = ft__find(msg, "insufficient power") != NULL;

		if (num_after(msg, "(", &v))
			ft__emit(c, line, "nic.pcie_power", true, v, "W",
				 ft__span_c(low ? "insufficient" : "sufficient"));
		else
			ft__emit_cstr(c, line, "nic.pcie_power", low ? "insufficient" : "sufficient");
	} else if ((at = ft__find(msg, "Port module event")) != NULL) {
		struct ft__span r = from(msg, at), what;
		const char *comma = ft__find(r, ", ");
		bool err = ft__find(r, "[error]") != NULL;

		if (!num_after(r, ": module ", &v) || !comma)
			return true;
		what = ft__trim(from(r, comma + 2));
		if (err && (comma = ft__find(what, ", ")) != NULL)
			what = ft__trim(from(what, comma + 2)); /* "Cable error, High Temperature" */
		if (err) {
			char buf[96];

			snprintf(buf, sizeof(buf), "error: %.*s", (int)what.n, what.p);
			ft__emit(c, line, "nic.module", true, v, NULL, ft__span_c(buf));
		} else {
			ft__emit(c, line, "nic.module", true, v, NULL,
				 ft__span_c(ft__find(what, "unplugged") ? "unplugged" : "plugged"));
		}
	} else if (ifname.n && (ft__eq(msg, "Link down") || ft__eq(msg, "Link up"))) {
		ft__emit_cstr(c, line, "nic.link", ft__eq(msg, "Link down") ? "down" : "up");
	}
	return true;
}

bool
ft__xid_line(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	const char *x = ft__find(s, "NVRM: Xid ");
	const char *sx = x ? NULL : ft__find(s, "SXid (");
	const char *at = x ? x : sx;

	if (at) {
		struct ft__span pci = pci_in_parens(s, at), rest, tok;
		const char *colon;
		uint64_t code;

		if (!pci.p)
			return false;
		colon = memchr(pci.p + pci.n, ':', (size_t)(s.p + s.n - (pci.p + pci.n)));
		if (!colon)
			return false;
		rest = ft__trim(ft__skip(s, (size_t)(colon - s.p) + 1));
		tok = rest;
		tok.n = 0;
		while (tok.n < rest.n && rest.p[tok.n] >= '0' && rest.p[tok.n] <= '9')
			tok.n++;
		if (!ft__u64(tok, &code))
			return false;
		rest = ft__skip(rest, tok.n);
		if (rest.n && rest.p[0] == ',')
			rest = ft__skip(rest, 1);
		syslog_host(c, s);
		ft__copy(c->device, sizeof(c->device), no_function(pci));
		c->port = c->rank = -1;
		ft__emit(c, line, x ? "gpu.xid" : "gpu.sxid", true, (double)code, NULL,
			 ft__trim(rest));
		return true;
	}
	if (ft__find(s, "NVRM: The NVIDIA GPU ")) {
		/* the first line of the multi-line form: the GPU's address, the verdict follows */
		struct ft__span r = ft__skip(s, (size_t)(ft__find(s, "NVRM: The NVIDIA GPU ") - s.p) + 21),
				dev;

		if (ft__token(&r, &dev))
			ft__copy(c->device, sizeof(c->device), no_function(dev));
		return !ft__find(s, "fallen off the bus") ? true : (xid_fallen(c, s, line), true);
	}
	if (ft__find(s, "NVRM:") && ft__find(s, "fallen off the bus")) {
		xid_fallen(c, s, line);
		return true;
	}
	return pcie_bandwidth(c, s, line) || mlx5_line(c, s, line);
}

int
ft__xid_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;

	while (ft__lines_next(&it, &raw) && !c->rc)
		(void)(ft__xid_line(c, raw, it.lineno) || ft__torch_line(c, raw, it.lineno));
	/* the rest of a kernel log is not ours to judge */
	return c->rc;
}

FT__PARSER(xid, "xid", "kernel log: NVIDIA Xid / NVSwitch SXid GPU error events, PCIe links",
           { 88, { "NVRM: Xid (|SXid (PCI:" } }, { 80, { "NVRM:", "fallen off the bus" } },
           { 75, { "Gb/s available PCIe bandwidth" } },
           { 72, { "mlx5_core 0000:|mlx5_core: probe of" } });
