/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_pkey.c - InfiniBand partitions as NCCL meets them: the P_Key at
 * the index NCCL's queue pairs use (NCCL_IB_PKEY, default 0) on every port
 * whose P_Key table was read (smpquery PKeyTable: ib.pkey.<index> and
 * ib.pkey.capacity per port).
 *
 * IB-PKEY: the low 15 bits of a P_Key name the partition and bit 15 is full
 * membership; two limited members of one partition cannot talk to each
 * other, and ports of different partitions not at all. So, at NCCL's index:
 * an empty entry (the port is in no partition there), ports whose entries
 * name different partitions, and two or more ports that are only limited
 * members of their partition. Findings are errors when NCCL_IB_PKEY was
 * observed (the job uses that index), warnings otherwise (index 0 is only
 * NCCL's default: the ports may not carry NCCL at all).
 *
 * The service level NCCL sends on (NCCL_IB_SL, default 0) goes out on the
 * VL the port's SL-to-VL table names (smpquery SL2VLTable: ib.sl2vl.sl<N>
 * per output port and input row). IB-VL: VL15 carries subnet
 * management only, and a data VL at or above the port's operational VLs
 * (PortInfo OperVLs, "VL0-1") has no buffers: packets on that SL are
 * dropped. One finding per output port.
 *
 * The rules' entries, ib-pkey-membership and ib-sl-vl-unserved, are in the
 * catalogue (rules_table.c), after the InfiniBand port rules.
 */
#include "internal.h"

#include "diag/diag_int.h"

#define PKEY_MAX_PORTS 256
#define PKEY_FULL      0x8000u
#define PKEY_PART(k)   ((unsigned)(k) & 0x7fffu)

struct pkey_at {
	const struct ft_obs *o; /* ib.pkey.<index> of one port */
	unsigned pkey;
};

struct pkey_scan {
	const struct ft_obs *env; /* nccl.env.NCCL_IB_PKEY, or NULL */
	unsigned index;
	char why[48]; /* "NCCL_IB_PKEY=1" or "NCCL's default index 0" */
	struct pkey_at at[PKEY_MAX_PORTS];
	size_t n;
};

/* "LID 5, LID 8" from the ports of @s in partition @part with membership @full (any: -1). */
static size_t
port_list(const struct pkey_scan *s, unsigned part, int full, char *buf, size_t len,
	  const struct ft_obs **ev, size_t nev)
{
	size_t i, k = 0, used = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		bool is_full = (s->at[i].pkey & PKEY_FULL) != 0;
		char ent[96];

		if (PKEY_PART(s->at[i].pkey) != part || (full >= 0 && is_full != (full == 1)))
			continue;
		ft_obs_entity(s->at[i].o, ent, sizeof(ent));
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", ent);
		if (k < nev)
			ev[k] = s->at[i].o;
		k++;
	}
	return k;
}

static int
limited_members(const struct ft_diag_ctx *c, const struct pkey_scan *s, struct ft_findings *out)
{
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE] = { 0 };
	char limited[384], fulls[256];
	size_t i, j, nlim, nfull;
	int rc;

	for (i = 0; i < s->n; i++) {
		unsigned part = PKEY_PART(s->at[i].pkey);

		for (j = 0; j < i && PKEY_PART(s->at[j].pkey) != part; j++)
			;
		if (j < i)
			continue; /* partition seen already */
		/* evidence: the limited ports (as many as fit), then the variable */
		nlim = port_list(s, part, 0, limited, sizeof(limited), ev, FT_ARRAY_SIZE(ev) - 1);
		if (nlim < 2)
			continue;
		nfull = port_list(s, part, 1, fulls, sizeof(fulls), NULL, 0);
		ev[nlim < FT_ARRAY_SIZE(ev) - 1 ? nlim : FT_ARRAY_SIZE(ev) - 1] = s->env;
		rc = ft__diag_emit(c, out, s->env ? -1 : FT_SEV_WARNING, ev, FT_ARRAY_SIZE(ev),
				   "%zu ports are only limited members of partition 0x%04x at P_Key "
				   "index %u (%s): %s; limited members cannot talk to each other, so "
				   "NCCL connections between them fail (they reach %s%s)",
				   nlim, part, s->index, s->why, limited,
				   nfull ? "only the full members: " : "no port of the partition",
				   nfull ? fulls : "");
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ft__diag_eval_pkey(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	struct pkey_scan scan = { 0 }, *s = &scan; /* about 4 KiB */
	char key[32];
	double v;
	size_t i;
	int rc = 0;

	s->env = ft__diag_env(c, "NCCL_IB_PKEY");
	if (s->env && ft__obs_number(s->env, &v) && v >= 0 && v < 65536)
		s->index = (unsigned)v;
	else
		s->env = NULL;
	if (s->env)
		snprintf(s->why, sizeof(s->why), "NCCL_IB_PKEY=%u", s->index);
	else
		snprintf(s->why, sizeof(s->why), "NCCL_IB_PKEY not seen: NCCL's default");
	snprintf(key, sizeof(key), "ib.pkey.%u", s->index);
	for (i = 0; i < ft__nobs(c) && rc == 0; i++) {
		const struct ft_obs *cap = ft__obs(c, i), *o;
		const struct ft_obs *ev[2];

		if (strcmp(cap->key, "ib.pkey.capacity") != 0)
			continue;
		o = ft__diag_find_same(c, key, cap);
		if (o && o->has_num && o->num >= 0 && o->num <= 0xffff) {
			if (s->n < PKEY_MAX_PORTS)
				s->at[s->n++] = (struct pkey_at){ o, (unsigned)o->num };
			continue;
		}
		ev[0] = cap;
		ev[1] = s->env;
		rc = ft__diag_emit(c, out, s->env ? -1 : FT_SEV_WARNING, ev, 2,
				   "%s holds no P_Key at index %u (%s; its table has %.0f entries): "
				   "the port is in no partition there, so NCCL cannot set up its "
				   "queue pairs on it",
				   cap->device, s->index, s->why, cap->num);
	}
	for (i = 1; i < s->n && rc == 0; i++) {
		const struct ft_obs *ev[3] = { s->at[0].o, s->at[i].o, s->env };

		if (PKEY_PART(s->at[i].pkey) == PKEY_PART(s->at[0].pkey))
			continue;
		rc = ft__diag_emit(c, out, s->env ? -1 : FT_SEV_WARNING, ev, 3,
				   "ports disagree on the partition at P_Key index %u (%s): %s has "
				   "0x%04x (partition 0x%04x), %s has 0x%04x (partition 0x%04x); ports "
				   "of different partitions cannot talk to each other",
				   s->index, s->why, s->at[0].o->device, s->at[0].pkey,
				   PKEY_PART(s->at[0].pkey), s->at[i].o->device, s->at[i].pkey,
				   PKEY_PART(s->at[i].pkey));
		break;
	}
	if (rc == 0)
		rc = limited_members(c, s, out);
	return rc;
}

/* "VL0-1" -> 1, "VL0" -> 0: the highest operational VL; -1 when not of that form. */
static int
last_vl(const char *s)
{
	const char *dash = strchr(s, '-');
	char *end;
	long v;

	if (strncmp(s, "VL", 2) != 0)
		return -1;
	v = strtol(dash ? dash + 1 : s + 2, &end, 10);
	return end != (dash ? dash + 1 : s + 2) && *end == '\0' && v >= 0 && v < 15 ? (int)v : -1;
}

int
ft__diag_eval_sl2vl(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *env = ft__diag_env(c, "NCCL_IB_SL"), *done[64];
	char key[32], why[32];
	size_t i, k, ndone = 0;
	unsigned sl = 0;
	double v;
	int rc = 0;

	if (env && ft__obs_number(env, &v) && v >= 0 && v < 16)
		sl = (unsigned)v;
	else
		env = NULL;
	snprintf(why, sizeof(why), env ? "NCCL_IB_SL=%u" : "NCCL's default SL %u", sl);
	snprintf(key, sizeof(key), "ib.sl2vl.sl%u", sl);
	for (i = 0; i < ft__nobs(c) && rc == 0; i++) {
		const struct ft_obs *o = ft__obs(c, i), *oper, *ev[3];
		int last;

		if (strcmp(o->key, key) != 0 || !o->has_num)
			continue;
		for (k = 0; k < ndone && !ft__same_port(done[k], o); k++)
			;
		if (k < ndone)
			continue; /* one finding per output port */
		oper = ft__diag_find_same(c, "ib.portinfo.OperVLs", o);
		last = oper ? last_vl(oper->str) : -1;
		if (o->num != 15 && (last < 0 || o->num <= last))
			continue;
		ev[0] = o;
		ev[1] = o->num == 15 ? NULL : oper;
		ev[2] = env;
		if (o->num == 15)
			rc = ft__diag_emit(c, out, env ? -1 : FT_SEV_WARNING, ev, 3,
					   "%s port %d sends SL %u (%s) on VL15, which carries subnet "
					   "management only: data on that SL is dropped (%s)",
					   o->device, o->port, sl, why, o->str);
		else
			rc = ft__diag_emit(c, out, env ? -1 : FT_SEV_WARNING, ev, 3,
					   "%s port %d sends SL %u (%s) on VL%.0f, but only VL0-%d are "
					   "operational there (OperVLs %s): data on that SL is dropped (%s)",
					   o->device, o->port, sl, why, o->num, last, oper->str, o->str);
		if (ndone < FT_ARRAY_SIZE(done))
			done[ndone++] = o;
	}
	return rc;
}
