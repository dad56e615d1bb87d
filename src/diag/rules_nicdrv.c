/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_nicdrv.c - a ConnectX NIC as its driver (mlx5_core) saw it in
 * the kernel log: one that failed to come up (probe failed, firmware stuck in
 * pre-initialization), whose firmware stopped answering (health counter
 * stalled, fatal syndrome), whose commands failed or timed out, whose slot
 * does not give it the power it asks for, whose module reported an error or
 * went away, or whose link went down. A node with such a NIC has no (or a
 * lame) port on that network, and nothing else in the inputs may say why.
 *
 * The meanings paraphrase the driver (Linux drivers/net/ethernet/mellanox/
 * mlx5/core: main.c, health.c, cmd.c, events.c, en_main.c). One finding per
 * NIC, at its worst event, the others as evidence.
 */
#include "internal.h"

#include "diag/diag_int.h"

static const char *const nic_keys[] = { "nic.probe_failed", "nic.fw_error", "nic.cmd_error",
					"nic.pcie_power",   "nic.module",   "nic.link" };

static bool
is_nic_key(const char *key)
{
	size_t k;

	for (k = 0; k < FT_ARRAY_SIZE(nic_keys); k++)
		if (strcmp(key, nic_keys[k]) == 0)
			return true;
	return false;
}

static bool
same_nic(const struct ft_obs *a, const struct ft_obs *b)
{
	return strcmp(a->host, b->host) == 0 && strcmp(a->device, b->device) == 0;
}

/* What one event says: its severity (-1: nothing wrong) and the words for it. */
struct nic_verdict {
	int sev;
	const char *what, *todo;
};

static struct nic_verdict
judge(const struct ft_obs *o, const struct ft_obs *last_module, const struct ft_obs *last_link)
{
	struct nic_verdict v = { -1, NULL, NULL };

	if (strcmp(o->key, "nic.probe_failed") == 0) {
		v = (struct nic_verdict){
			FT_SEV_CRITICAL, "the driver failed to bring the NIC up (probe failed)",
			"the node has no port on this NIC: power-cycle the node (a cold start, "
			"so the card loses power), check its firmware with mlxfwmanager and "
			"reseat the card; replace it if it fails again"
		};
	} else if (strcmp(o->key, "nic.fw_error") == 0) {
		v = (struct nic_verdict){
			FT_SEV_CRITICAL, "the NIC's firmware failed or stopped answering",
			"drain the node and power-cycle it (a firmware stuck after a fault "
			"comes back only when the card loses power); update the firmware "
			"(mlxfwmanager), replace the card if it recurs"
		};
	} else if (strcmp(o->key, "nic.cmd_error") == 0) {
		if (ft__str_icontains(o->str, "ACCESS_REG"))
			v = (struct nic_verdict){
				FT_SEV_INFO,
				"a register read through the driver was refused (ACCESS_REG): on "
				"systems whose firmware owns some functions, reading their counters "
				"gives this",
				"nothing to fix on the NIC; leave that device out of counter polling"
			};
		else if (ft__str_icontains(o->str, "timeout"))
			v = (struct nic_verdict){
				FT_SEV_ERROR, "a command to the NIC's firmware timed out",
				"the firmware is hung or the PCIe path is broken: check the "
				"kernel log for the health lines that follow, power-cycle the node"
			};
		else
			v = (struct nic_verdict){
				FT_SEV_WARNING, "a command to the NIC's firmware failed",
				"read the command and status named in the line; a firmware update "
				"(mlxfwmanager) fixes most"
			};
	} else if (strcmp(o->key, "nic.pcie_power") == 0) {
		if (strcmp(o->str, "insufficient") == 0)
			v = (struct nic_verdict){
				FT_SEV_WARNING,
				"the PCIe slot advertises less power than the NIC needs, and the NIC "
				"may limit itself",
				"move the card to a slot (or riser) that gives it its power, or fix "
				"the slot's power limit in the BIOS; measure the port's bandwidth "
				"(ib_write_bw) to see whether it is limited"
			};
	} else if (strcmp(o->key, "nic.module") == 0) {
		if (strncmp(o->str, "error", 5) == 0)
			v = (struct nic_verdict){
				FT_SEV_ERROR, "the port's cable or transceiver module reported an error",
				"reseat or replace the module or cable named; for a high temperature "
				"check the airflow over the NIC"
			};
		else if (o == last_module && strcmp(o->str, "unplugged") == 0)
			v = (struct nic_verdict){ FT_SEV_WARNING,
						  "the port's cable or module is absent (unplugged)",
						  "plug the cable or module in, or reseat it" };
	} else if (strcmp(o->key, "nic.link") == 0) {
		if (o == last_link && strcmp(o->str, "down") == 0)
			v = (struct nic_verdict){
				FT_SEV_WARNING, "the port's link is down",
				"check the cable, the module and the switch port (ethtool, mlxlink)"
			};
	}
	return v;
}

/* The latest event of @key on @o's NIC among observations @from.. (input order). */
static const struct ft_obs *
latest(const struct ft_diag_ctx *c, size_t from, const struct ft_obs *o, const char *key)
{
	const struct ft_obs *best = NULL, *p;
	size_t i;

	for (i = from; i < ft__nobs(c); i++) {
		p = ft__obs(c, i);
		if (strcmp(p->key, key) == 0 && same_nic(p, o))
			best = p;
	}
	return best;
}

static int
check_nic(const struct ft_diag_ctx *c, struct ft_findings *out, size_t first)
{
	const struct ft_obs *o = ft__obs(c, first), *p, *worst = NULL;
	const struct ft_obs *last_module = latest(c, first, o, "nic.module");
	const struct ft_obs *last_link = latest(c, first, o, "nic.link");
	struct nic_verdict w = { -1, NULL, NULL }, v;
	struct ft__evidence e = { 0 };
	size_t i, events = 0;

	for (i = first; i < ft__nobs(c); i++) {
		p = ft__obs(c, i);
		if (!is_nic_key(p->key) || !same_nic(p, o))
			continue;
		v = judge(p, last_module, last_link);
		if (v.sev < 0)
			continue;
		events++;
		/* a failed probe heads the finding: what the user sees, its cause as evidence */
		if (v.sev > w.sev || (v.sev == w.sev && strcmp(p->key, "nic.probe_failed") == 0 &&
				      strcmp(worst->key, "nic.probe_failed") != 0)) {
			w = v;
			worst = p;
		}
	}
	if (!worst)
		return 0;
	ft__evidence_add(&e, worst);
	for (i = first; i < ft__nobs(c); i++) {
		p = ft__obs(c, i);
		if (p != worst && is_nic_key(p->key) && same_nic(p, o) &&
		    judge(p, last_module, last_link).sev >= 0)
			ft__evidence_add(&e, p);
	}
	return ft__diag_emit(c, out, w.sev, e.ev, e.n,
			     "NIC %s: %s (\"%.120s\")%s; %s", o->device[0] ? o->device : "?",
			     w.what, worst->str,
			     events > 1 ? ", with its other driver events as evidence" : "", w.todo);
}

int
ft__diag_eval_nic_driver(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	size_t i, j;
	int rc;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		bool seen = false;

		if (!is_nic_key(o->key))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = is_nic_key(ft__obs(c, j)->key) && same_nic(ft__obs(c, j), o);
		if (!seen && (rc = check_nic(c, out, i)) != 0)
			return rc;
	}
	return 0;
}
