/* SPDX-License-Identifier: MIT */
/*
 * archive/fingerprint.c - where a run happened: host, hardware, firmware,
 * driver and fabtune versions and the environment variables that change
 * network behaviour, as a sorted key = value set with a digest.
 *
 * Two runs with the same digest ran on the same setup; when they differ,
 * ft_fingerprint_diff() names what changed (a driver update, an NCCL_*
 * variable left set: SYM-ENV-LEFTOVER), which is the first question to ask
 * about a regression.
 */
#include "archive_int.h"

#include <fabtune/probe.h>
#include <fabtune/version.h>

extern char **environ;

void
ft_fingerprint_init(struct ft_fingerprint *fp)
{
	ft_vec_init(&fp->items, sizeof(struct ft_fingerprint_item));
}

void
ft_fingerprint_release(struct ft_fingerprint *fp)
{
	ft_vec_release(&fp->items);
}

/* Index of @key, or of where it would be inserted (binary search). */
static size_t
find_pos(const struct ft_fingerprint *fp, const char *key, bool *found)
{
	size_t lo = 0, hi = fp->items.len;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ft_fingerprint_at(fp, mid)->key, key);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
ft_fingerprint_set(struct ft_fingerprint *fp, const char *key, const char *value)
{
	struct ft_fingerprint_item it, *p;
	bool found;
	size_t pos;

	if (!key || !key[0])
		return FT_EINVAL;
	memset(&it, 0, sizeof(it));
	ft_strlcpy(it.key, key, sizeof(it.key));
	ft_strlcpy(it.value, value ? value : "", sizeof(it.value));
	pos = find_pos(fp, it.key, &found);
	if (found) {
		p = ft_vec_at(&fp->items, pos);
		memcpy(p->value, it.value, sizeof(it.value));
		return 0;
	}
	if (ft_vec_push(&fp->items, NULL) < 0)
		return FT_ENOMEM;
	p = ft_vec_at(&fp->items, pos);
	/* one key among others: many keys go through add_batch() */
	memmove(p + 1, p, (fp->items.len - 1 - pos) * sizeof(*p));
	*p = it;
	return 0;
}

/*
 * Adding many keys: each is appended unsorted (append_item), then one
 * sort_items() restores the order, keeping the value set last for a key as
 * ft_fingerprint_set() would. O(n log n) where one ft_fingerprint_set() per
 * key, with its memmove, was O(n^2): 1.4 million observations took minutes.
 */
static int
append_item(struct ft_fingerprint *fp, const char *key, const char *value)
{
	struct ft_fingerprint_item *p;

	if (!key || !key[0])
		return FT_EINVAL;
	if (ft_vec_push(&fp->items, NULL) < 0)
		return FT_ENOMEM;
	p = ft_vec_at(&fp->items, fp->items.len - 1);
	memset(p, 0, sizeof(*p));
	ft_strlcpy(p->key, key, sizeof(p->key));
	ft_strlcpy(p->value, value ? value : "", sizeof(p->value));
	return 0;
}

struct item_ref {
	const struct ft_fingerprint_item *it;
	size_t idx; /* order of setting: the later wins */
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct item_ref *x = a, *y = b;
	int c = strcmp(x->it->key, y->it->key);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
sort_items(struct ft_fingerprint *fp)
{
	size_t n = fp->items.len, i, k;
	struct ft_fingerprint_item *out;
	struct item_ref *refs;

	if (n < 2)
		return 0;
	refs = ft_calloc(n, sizeof(*refs));
	out = ft_calloc(n, sizeof(*out));
	if (!refs || !out) {
		ft_free(refs);
		ft_free(out);
		return FT_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		refs[i].it = ft_fingerprint_at(fp, i);
		refs[i].idx = i;
	}
	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (i = 0, k = 0; i < n; i++) {
		if (i + 1 < n && strcmp(refs[i].it->key, refs[i + 1].it->key) == 0)
			continue; /* a later value for the same key follows */
		out[k++] = *refs[i].it;
	}
	memcpy(fp->items.data, out, k * sizeof(*out));
	fp->items.len = k;
	ft_free(out);
	ft_free(refs);
	return 0;
}

const char *
ft_fingerprint_get(const struct ft_fingerprint *fp, const char *key)
{
	bool found;
	size_t pos = find_pos(fp, key, &found);

	return found ? ft_fingerprint_at(fp, pos)->value : NULL;
}

void
ft_fingerprint_digest(const struct ft_fingerprint *fp, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < ft_fingerprint_len(fp); i++) {
		const struct ft_fingerprint_item *it = ft_fingerprint_at(fp, i);
		const char *parts[2] = { it->key, it->value };
		const char seps[2] = { '=', '\n' };
		int k;

		for (k = 0; k < 2; k++) {
			const unsigned char *p;

			for (p = (const unsigned char *)parts[k]; *p; p++)
				h = (h ^ *p) * 0x100000001b3ull;
			h = (h ^ (unsigned char)seps[k]) * 0x100000001b3ull;
		}
	}
	snprintf(out, 17, "%016" PRIx64, h);
}

int
ft_fingerprint_diff(const struct ft_fingerprint *before, const struct ft_fingerprint *after,
                    struct ft_vec *out)
{
	size_t i = 0, k = 0;

	while (i < ft_fingerprint_len(before) || k < ft_fingerprint_len(after)) {
		const struct ft_fingerprint_item *a =
		        i < ft_fingerprint_len(before) ? ft_fingerprint_at(before, i) : NULL;
		const struct ft_fingerprint_item *b =
		        k < ft_fingerprint_len(after) ? ft_fingerprint_at(after, k) : NULL;
		struct ft_fingerprint_change ch;
		int c = !a ? 1 : !b ? -1 : strcmp(a->key, b->key);

		memset(&ch, 0, sizeof(ch));
		if (c < 0) {
			ft_strlcpy(ch.key, a->key, sizeof(ch.key));
			ft_strlcpy(ch.before, a->value, sizeof(ch.before));
			i++;
		} else if (c > 0) {
			ft_strlcpy(ch.key, b->key, sizeof(ch.key));
			ft_strlcpy(ch.after, b->value, sizeof(ch.after));
			k++;
		} else {
			i++;
			k++;
			if (strcmp(a->value, b->value) == 0)
				continue;
			ft_strlcpy(ch.key, a->key, sizeof(ch.key));
			ft_strlcpy(ch.before, a->value, sizeof(ch.before));
			ft_strlcpy(ch.after, b->value, sizeof(ch.after));
		}
		if (ft_vec_push(out, &ch) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

/* ---- collection ---------------------------------------------------------- */

/*
 * Variables that change what the network stack does: NCCL (ENV- entries of
 * the knowledge base), UCX and Open MPI's MCA parameters, libfabric, SHARP
 * and HCOLL, NVSHMEM, the verbs provider, and the CUDA ones NCCL reads.
 */
static const char *const env_prefixes[] = {
	"NCCL_", "UCX_",   "OMPI_MCA_", "PMIX_MCA_", "FI_",    "SHARP_", "HCOLL_",      "NVSHMEM_",
	"MLX5_", "RDMAV_", "IBV_",      "MPICH_",    "I_MPI_", "UCC_",   "TORCH_NCCL_",
};
static const char *const env_names[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_LAUNCH_BLOCKING", "LD_PRELOAD",
	"OMP_NUM_THREADS",
};

bool
ft_fingerprint_env_matters(const char *name)
{
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(env_prefixes); i++)
		if (strncmp(name, env_prefixes[i], strlen(env_prefixes[i])) == 0)
			return true;
	for (i = 0; i < FT_ARRAY_SIZE(env_names); i++)
		if (strcmp(name, env_names[i]) == 0)
			return true;
	return false;
}

/* Probe observations of an RDMA device's identity, and the fingerprint attribute each is. */
static const struct {
	const char *obs_key, *fp_attr;
} dev_keys[] = {
	{ "ib.dev.fw_ver", "fw_ver" },
	{ "ib.dev.ca_type", "hca_type" },
	{ "ib.dev.board_id", "board_id" },
};

/* Observations of the host that are fingerprint keys under their own name. */
static const char *const host_keys[] = {
	"nccl.version", "host.kernel", "host.kernel_build", "host.arch",   "host.os",
	"cpu.model",    "cpu.count",   "mem.total_bytes",   "gpu.driver",
};

/*
 * The fingerprint key of observation @o, false when it is none: a host fact
 * ("host.kernel"), a device's identity ("ib.mlx5_0.fw_ver"), a driver's
 * version ("driver.mlx5_core.version"), a variable NCCL reported
 * ("env.NCCL_IB_HCA") or one of /etc/nccl.conf ("nccl.conf.NCCL_IB_TIMEOUT",
 * the one kind whose empty value still counts: the line sets it empty).
 */
static bool
fact_key(const struct ft_obs *o, char *key, size_t len)
{
	size_t k;

	if (strncmp(o->key, "nccl.conf.", 10) == 0 && o->key[10]) {
		ft_strlcpy(key, o->key, len);
		return true;
	}
	if (!o->str[0])
		return false;
	for (k = 0; k < FT_ARRAY_SIZE(host_keys); k++)
		if (strcmp(o->key, host_keys[k]) == 0) {
			ft_strlcpy(key, o->key, len);
			return true;
		}
	if (strncmp(o->key, "nccl.env.", 9) == 0 && o->key[9]) {
		snprintf(key, len, "env.%s", o->key + 9);
		return true;
	}
	if (!o->device[0])
		return false;
	if (strcmp(o->key, "driver.version") == 0) {
		snprintf(key, len, "driver.%.40s.version", o->device);
		return true;
	}
	for (k = 0; k < FT_ARRAY_SIZE(dev_keys); k++)
		if (strcmp(o->key, dev_keys[k].obs_key) == 0) {
			snprintf(key, len, "ib.%.40s.%s", o->device, dev_keys[k].fp_attr);
			return true;
		}
	return false;
}

static int
collect_env(struct ft_fingerprint *fp, char *const *envp)
{
	char key[64], name[60];
	int rc = 0;

	for (; rc == 0 && envp && *envp; envp++) {
		const char *eq = strchr(*envp, '=');

		if (!eq || eq == *envp)
			continue;
		ft_strlcpy(name, *envp, FT_MIN(sizeof(name), (size_t)(eq - *envp) + 1));
		if (!ft_fingerprint_env_matters(name))
			continue;
		snprintf(key, sizeof(key), "env.%s", name);
		rc = ft_fingerprint_set(fp, key, eq + 1);
	}
	return rc;
}

/*
 * Where this host is, from the probe's observations alone (the one reader of
 * /proc, /etc and /sys): its facts (ft_probe_host_facts) and its RDMA
 * devices (ft_probe_rdma_devices) become keys as for an import
 * (ft_fingerprint_from_obs); then the variables of @envp and our version.
 */
int
ft_fingerprint_collect_at(struct ft_fingerprint *fp, const char *root, char *const *envp,
                          struct ft_error *err)
{
	struct ft_obs_set obs;
	int rc;

	ft_obs_set_init(&obs);
	rc = ft_probe_host_facts(root, &obs, NULL);
	if (rc == 0)
		rc = ft_probe_rdma_devices(root, &obs, NULL);
	if (rc == 0)
		rc = ft_fingerprint_from_obs(fp, &obs);
	ft_obs_set_release(&obs);
	if (rc == 0)
		rc = collect_env(fp, envp);
	if (rc == 0)
		rc = ft_fingerprint_set(fp, "fabtune.version", ft_version());
	if (rc < 0)
		return ft_error_set(err, rc, "fingerprint: out of memory");
	return 0;
}

int
ft_fingerprint_collect(struct ft_fingerprint *fp, struct ft_error *err)
{
	return ft_fingerprint_collect_at(fp, "/", environ, err);
}

/* ---- from observations (the probe's, an import's) ------------------------ */

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
hosts_from_obs(struct ft_fingerprint *fp, const struct ft_obs_set *obs)
{
	struct ft_vec hosts;
	struct ft_strbuf sb;
	size_t i, k;
	int rc = 0;

	ft_vec_init(&hosts, sizeof(const char *));
	for (i = 0; rc == 0 && i < ft_obs_set_len(obs); i++) {
		const char *h = ft_obs_set_at(obs, i)->host;

		if (h[0])
			rc = ft_vec_push(&hosts, &h);
	}
	if (rc == 0 && hosts.len) {
		qsort(hosts.data, hosts.len, sizeof(const char *), str_cmp);
		ft_strbuf_init(&sb);
		for (i = 0, k = 0; i < hosts.len; i++) {
			const char *h = FT_VEC_AT(&hosts, const char *, i);

			if (i && strcmp(h, FT_VEC_AT(&hosts, const char *, i - 1)) == 0)
				continue;
			ft_strbuf_addf(&sb, "%s%s", k++ ? "," : "", h);
		}
		rc = ft_fingerprint_set(fp, "host.name", FT_VEC_AT(&hosts, const char *, 0));
		if (rc == 0 && k > 1)
			rc = ft_fingerprint_set(fp, "hosts", sb.buf);
		if (rc == 0 && sb.oom)
			rc = FT_ENOMEM;
		ft_strbuf_release(&sb);
	}
	ft_vec_release(&hosts);
	return rc;
}

int
ft_fingerprint_from_obs(struct ft_fingerprint *fp, const struct ft_obs_set *obs)
{
	char key[64];
	size_t i, start;
	int rc = hosts_from_obs(fp, obs);

	start = fp->items.len;
	for (i = 0; rc == 0 && i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);

		if (fact_key(o, key, sizeof(key)))
			rc = append_item(fp, key, o->str);
	}
	if (rc == 0)
		rc = sort_items(fp);
	if (rc < 0)
		fp->items.len = start; /* drop the unsorted tail: the set stays sorted */
	return rc;
}
