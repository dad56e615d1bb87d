/* SPDX-License-Identifier: MIT */
/*
 * report/prom_obs.c - a probe's observations in the Prometheus text format:
 * InfiniBand and RoCE port counters, Ethernet interface counters, PFC pause
 * frames per priority, and their rates when the probe took two snapshots.
 *
 * Names follow node_exporter's infiniband and netdev collectors with the
 * "fabtune_" prefix in place of "node_" (port_xmit_data becomes
 * fabtune_infiniband_port_data_transmitted_bytes_total, counted in bytes:
 * the port counter is in 4-byte words), so dashboards and alerts written for
 * node_exporter carry over by changing the prefix. Counters are `counter`
 * families ending in _total; rates measured over --interval are gauges
 * ending in _per_second. Labels are bounded: host, device, port and, for PFC,
 * priority.
 */
#include "report_int.h"

/* One counter the probe reads, and its family name without prefix and suffix. */
struct counter_name {
	const char *key;    /* observation key after "ib.counter.", "ib.hw_counter." or "eth.counter." */
	const char *family; /* e.g. "infiniband_port_data_received_bytes" */
	const char *help;
};

static const struct counter_name ib_counters[] = {
	{ "PortXmitData", "infiniband_port_data_transmitted_bytes", "Data transmitted on the port, bytes." },
	{ "PortRcvData", "infiniband_port_data_received_bytes", "Data received on the port, bytes." },
	{ "PortXmitPkts", "infiniband_port_packets_transmitted", "Packets transmitted on all VLs." },
	{ "PortRcvPkts", "infiniband_port_packets_received", "Packets received on all VLs." },
	{ "PortUnicastXmitPkts", "infiniband_unicast_packets_transmitted", "Unicast packets transmitted." },
	{ "PortUnicastRcvPkts", "infiniband_unicast_packets_received", "Unicast packets received." },
	{ "PortMulticastXmitPkts", "infiniband_multicast_packets_transmitted", "Multicast packets transmitted." },
	{ "PortMulticastRcvPkts", "infiniband_multicast_packets_received", "Multicast packets received." },
	{ "SymbolErrorCounter", "infiniband_symbol_error", "Minor link errors on one or more lanes." },
	{ "LinkDownedCounter", "infiniband_link_downed", "Times the link failed to recover and went down." },
	{ "LinkErrorRecoveryCounter", "infiniband_link_error_recovery", "Times the link recovered from an error." },
	{ "PortRcvErrors", "infiniband_port_errors_received", "Packets with an error received." },
	{ "PortRcvRemotePhysicalErrors", "infiniband_port_receive_remote_physical_errors", "Packets received marked bad by the sender." },
	{ "PortRcvSwitchRelayErrors", "infiniband_port_receive_switch_relay_errors", "Packets a switch could not forward." },
	{ "PortXmitDiscards", "infiniband_port_discards_transmitted", "Outbound packets discarded (port down or congested)." },
	{ "PortXmitConstraintErrors", "infiniband_port_constraint_errors_transmitted", "Packets not transmitted for a constraint." },
	{ "PortRcvConstraintErrors", "infiniband_port_constraint_errors_received", "Packets received and discarded for a constraint." },
	{ "LocalLinkIntegrityErrors", "infiniband_local_link_integrity_errors", "Local physical error threshold exceeded." },
	{ "ExcessiveBufferOverrunErrors", "infiniband_excessive_buffer_overrun_errors", "Consecutive flow-control overruns." },
	{ "VL15Dropped", "infiniband_vl15_dropped", "VL15 (management) packets dropped." },
	{ "PortXmitWait", "infiniband_port_transmit_wait", "Ticks with data to send and no credit (congestion)." },
};

static const struct counter_name hw_counters[] = {
	{ "np_cnp_sent", "infiniband_np_cnp_packets_sent", "CNPs sent by the notification point (ECN-marked packets seen)." },
	{ "np_ecn_marked_roce_packets", "infiniband_np_ecn_marked_roce_packets_received", "RoCEv2 packets received with ECN congestion marks." },
	{ "rp_cnp_handled", "infiniband_rp_cnp_packets_handled", "CNPs handled by the reaction point (rate reductions)." },
	{ "rp_cnp_ignored", "infiniband_rp_cnp_ignored_packets_received", "CNPs received and ignored (congestion control off)." },
	{ "out_of_sequence", "infiniband_out_of_sequence_packets_received", "Out-of-sequence packets received." },
	{ "packet_seq_err", "infiniband_packet_sequence_errors", "NAK sequence error packets received." },
	{ "local_ack_timeout_err", "infiniband_local_ack_timeout_errors", "QP ack timer expirations at the sender." },
	{ "out_of_buffer", "infiniband_out_of_buffer_drops", "Drops for lack of receive WQEs." },
	{ "implied_nak_seq_err", "infiniband_implied_nak_seq_errors", "Implied NAK sequence errors." },
	{ "rnr_nak_retry_err", "infiniband_rnr_nak_retry_packets_received", "RNR NAK packets received." },
	{ "duplicate_request", "infiniband_duplicate_requests_packets", "Duplicate requests received." },
	{ "roce_adp_retrans", "infiniband_roce_adp_retransmits", "Adaptive retransmissions of RoCE traffic." },
	{ "roce_slow_restart", "infiniband_roce_slow_restart", "Times RoCE slow restart was entered." },
};

static const struct counter_name eth_counters[] = {
	{ "rx_bytes", "network_receive_bytes", "Bytes received by the interface." },
	{ "tx_bytes", "network_transmit_bytes", "Bytes transmitted by the interface." },
	{ "rx_packets", "network_receive_packets", "Packets received by the interface." },
	{ "tx_packets", "network_transmit_packets", "Packets transmitted by the interface." },
	{ "rx_errors", "network_receive_errs", "Receive errors." },
	{ "tx_errors", "network_transmit_errs", "Transmit errors." },
	{ "rx_dropped", "network_receive_drop", "Received packets dropped." },
	{ "tx_dropped", "network_transmit_drop", "Transmitted packets dropped." },
	{ "rx_discards_phy", "ethtool_rx_discards_phy", "Packets discarded by the NIC for lack of buffer (congestion)." },
	{ "rx_out_of_buffer", "ethtool_rx_out_of_buffer", "Packets dropped for lack of receive WQEs." },
	{ "tx_pause_ctrl_phy", "ethtool_tx_pause_ctrl_phy", "Pause frames transmitted (global pause)." },
	{ "rx_pause_ctrl_phy", "ethtool_rx_pause_ctrl_phy", "Pause frames received (global pause)." },
};

struct sample {
	char family[128];
	const char *help;
	bool counter;
	char labels[320];
	double value;
	size_t order;
};

static void
label(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf);
	const char *s;

	if (!value || !value[0] || n + 8 >= len)
		return;
	n += (size_t)snprintf(buf + n, len - n, "%s%s=\"", n ? "," : "", name);
	for (s = value; *s && n + 3 < len; s++) {
		if (*s == '\\' || *s == '"')
			buf[n++] = '\\', buf[n++] = *s;
		else if (*s == '\n')
			buf[n++] = '\\', buf[n++] = 'n';
		else
			buf[n++] = *s;
	}
	if (n + 1 < len)
		buf[n++] = '"';
	buf[n] = '\0';
}

/* A metric name from a counter name nobody mapped: [a-z0-9_] only. */
static void
sanitize(char *out, size_t len, const char *prefix, const char *name)
{
	size_t n = (size_t)snprintf(out, len, "%s", prefix);

	for (; *name && n + 1 < len; name++)
		out[n++] = isalnum((unsigned char)*name) ? (char)tolower((unsigned char)*name) : '_';
	out[n] = '\0';
}

static const struct counter_name *
lookup(const struct counter_name *t, size_t n, const char *key, size_t keylen)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].key) == keylen && strncmp(t[i].key, key, keylen) == 0)
			return &t[i];
	return NULL;
}

/* "rx_prio3_pause" -> 3 and "received"; -1 for any other name. */
static int
pfc_priority(const char *name, size_t len, const char **dir)
{
	unsigned prio;
	int used = 0;
	char tail[16];

	if (len < 14 || len > 20)
		return -1;
	if (sscanf(name, "rx_prio%u_%15[a-z]%n", &prio, tail, &used) == 2 && prio < 8 &&
	    (size_t)used == len && strcmp(tail, "pause") == 0) {
		*dir = "received";
		return (int)prio;
	}
	if (sscanf(name, "tx_prio%u_%15[a-z]%n", &prio, tail, &used) == 2 && prio < 8 &&
	    (size_t)used == len && strcmp(tail, "pause") == 0) {
		*dir = "transmitted";
		return (int)prio;
	}
	return -1;
}

/* The sample of observation @o, or false when it is not a counter or a rate. */
static bool
obs_sample(const struct ft_obs *o, struct sample *s)
{
	static const char *const prefixes[] = { "ib.counter.", "ib.hw_counter.", "eth.counter." };
	const struct counter_name *cn = NULL;
	const char *name = NULL, *dir = NULL;
	char port[16] = "", prio[8] = "", base[96];
	size_t len, k;
	bool rate;
	int p = -1;

	if (!o->has_num)
		return false;
	for (k = 0; k < FT_ARRAY_SIZE(prefixes) && !name; k++)
		if (strncmp(o->key, prefixes[k], strlen(prefixes[k])) == 0)
			name = o->key + strlen(prefixes[k]);
	if (!name)
		return false;
	k--;
	len = strlen(name);
	rate = len > 5 && strcmp(name + len - 5, ".rate") == 0;
	if (rate)
		len -= 5;
	memset(s, 0, sizeof(*s));
	if (k == 0)
		cn = lookup(ib_counters, FT_ARRAY_SIZE(ib_counters), name, len);
	else if (k == 1)
		cn = lookup(hw_counters, FT_ARRAY_SIZE(hw_counters), name, len);
	else if ((p = pfc_priority(name, len, &dir)) < 0)
		cn = lookup(eth_counters, FT_ARRAY_SIZE(eth_counters), name, len);
	if (p >= 0) {
		snprintf(base, sizeof(base), "pfc_pause_frames_%s", dir);
		snprintf(prio, sizeof(prio), "%d", p);
		s->help = rate ? "PFC pause frames per second, by priority." :
		                 "PFC pause frames, by priority (ethtool -S rx/tx_prioN_pause).";
	} else if (cn) {
		snprintf(base, sizeof(base), "%s", cn->family);
		s->help = cn->help;
	} else {
		char raw[64];

		snprintf(raw, sizeof(raw), "%.*s", (int)FT_MIN(len, sizeof(raw) - 1), name);
		sanitize(base, sizeof(base), k == 2 ? "ethtool_" : "infiniband_", raw);
		s->help = k == 2 ? "NIC statistic (ethtool -S or sysfs)." :
		                   "Port counter (sysfs counters or hw_counters).";
	}
	s->counter = !rate;
	snprintf(s->family, sizeof(s->family), "fabtune_%s_%s", base, rate ? "per_second" : "total");
	s->value = o->num * (strcmp(o->unit, "4B") == 0 || strncmp(o->unit, "4B/", 3) == 0 ? 4 : 1);
	label(s->labels, sizeof(s->labels), "host", o->host);
	label(s->labels, sizeof(s->labels), "device", o->device);
	if (k < 2 && o->port > 0) {
		snprintf(port, sizeof(port), "%d", o->port);
		label(s->labels, sizeof(s->labels), "port", port);
	}
	label(s->labels, sizeof(s->labels), "priority", prio);
	return true;
}

static int
sample_cmp(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;
	int c = strcmp(a->family, b->family);

	if (c)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void
help_text(struct ft_strbuf *out, const char *help)
{
	for (; *help; help++) {
		if (*help == '\\')
			ft_strbuf_adds(out, "\\\\");
		else if (*help == '\n')
			ft_strbuf_adds(out, "\\n");
		else
			ft_strbuf_addch(out, *help);
	}
}

int
ft_report_obs_prom(const struct ft_obs_set *set, struct ft_strbuf *out, struct ft_error *err)
{
	size_t n = ft_obs_set_len(set), m = 0, i;
	struct sample *v = ft_reallocarray(NULL, n ? n : 1, sizeof(*v));

	if (!v)
		return ft_error_set(err, FT_ENOMEM, "prometheus: out of memory");
	for (i = 0; i < n; i++)
		if (obs_sample(ft_obs_set_at(set, i), &v[m])) {
			v[m].order = m;
			m++;
		}
	qsort(v, m, sizeof(*v), sample_cmp);
	for (i = 0; i < m; i++) {
		/* one label set once per family: a repeated one (two snapshots) keeps the last */
		if (i + 1 < m && strcmp(v[i].family, v[i + 1].family) == 0 &&
		    strcmp(v[i].labels, v[i + 1].labels) == 0)
			continue;
		if (i == 0 || strcmp(v[i].family, v[i - 1].family) != 0) {
			ft_strbuf_addf(out, "# HELP %s ", v[i].family);
			help_text(out, v[i].help);
			ft_strbuf_addf(out, "\n# TYPE %s %s\n", v[i].family,
			               v[i].counter ? "counter" : "gauge");
		}
		ft_strbuf_addf(out, "%s%s%s%s %.17g\n", v[i].family, v[i].labels[0] ? "{" : "",
		               v[i].labels, v[i].labels[0] ? "}" : "", v[i].value);
	}
	ft_free(v);
	return out->oom ? ft_error_set(err, FT_ENOMEM, "prometheus: out of memory") : 0;
}
