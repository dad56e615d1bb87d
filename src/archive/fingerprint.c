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

#include <sys/utsname.h>

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

/*
 * Open @path, under @root, for reading: symlinks of a captured tree never lead
 * out of it, and a FIFO or device there reads as absent (ft_file_open_under).
 */
static FILE *
open_under(const char *root, const char *path)
{
	int fd = ft_file_open_under(root, path, false, NULL);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* Read the first line of @root/@rel into @buf, trimmed. False when unreadable. */
static bool
read_line(const char *root, const char *rel, char *buf, size_t len)
{
	char path[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") == 0 ? "" : root, rel);
	f = open_under(root, path);
	if (!f)
		return false;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return buf[0] != '\0';
}

/* Value after "key<sep>" of the first line in @rel starting with @key. */
static bool
read_field(const char *root, const char *rel, const char *key, char sep, char *buf, size_t len)
{
	char path[1024], line[512];
	size_t klen = strlen(key);
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") == 0 ? "" : root, rel);
	f = open_under(root, path);
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, key, klen) != 0)
			continue;
		p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		while (*p == ' ' || *p == '\t' || *p == '"')
			p++;
		end = p + strlen(p);
		while (end > p && (isspace((unsigned char)end[-1]) || end[-1] == '"'))
			*--end = '\0';
		ft_strlcpy(buf, p, len);
		ok = true;
		break;
	}
	fclose(f);
	return ok;
}

static int
set_if(struct ft_fingerprint *fp, const char *key, bool have, const char *value)
{
	return have ? ft_fingerprint_set(fp, key, value) : 0;
}

/* Probe observations of an RDMA device's identity, and the fingerprint attribute each is. */
static const struct {
	const char *obs_key, *fp_attr;
} dev_keys[] = {
	{ "ib.dev.fw_ver", "fw_ver" },
	{ "ib.dev.ca_type", "hca_type" },
	{ "ib.dev.board_id", "board_id" },
};

/* The fingerprint key of observation @o ("ib.mlx5_0.fw_ver"), false when it is none. */
static bool
dev_key(const struct ft_obs *o, char *key, size_t len)
{
	size_t k;

	if (!o->device[0] || !o->str[0])
		return false;
	for (k = 0; k < FT_ARRAY_SIZE(dev_keys); k++)
		if (strcmp(o->key, dev_keys[k].obs_key) == 0) {
			snprintf(key, len, "ib.%.40s.%s", o->device, dev_keys[k].fp_attr);
			return true;
		}
	return false;
}

/*
 * The RDMA devices' firmware, type and board, from the probe's observations
 * of @root (the one reader of /sys/class/infiniband; no PCI tree, no tools).
 * A tree the probe cannot read adds nothing.
 */
static int
collect_ib(struct ft_fingerprint *fp, const char *root)
{
	struct ft_error err = { 0 };
	struct ft_obs_set obs;
	char key[64];
	size_t i;
	int rc;

	ft_obs_set_init(&obs);
	rc = ft_probe_rdma_devices(root, &obs, &err);
	if (rc == FT_ENOMEM) {
		ft_obs_set_release(&obs);
		return rc;
	}
	rc = 0;
	for (i = 0; rc == 0 && i < ft_obs_set_len(&obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&obs, i);

		if (dev_key(o, key, sizeof(key)))
			rc = ft_fingerprint_set(fp, key, o->str);
	}
	ft_obs_set_release(&obs);
	return rc;
}

/* Drivers of network and GPU devices whose version matters (HOST-GDR). */
static int
collect_drivers(struct ft_fingerprint *fp, const char *root)
{
	static const char *const modules[] = { "mlx5_core",      "mlx5_ib", "ib_core", "nvidia",
		                               "nvidia_peermem", "bnxt_en", "irdma",   "efa" };
	char rel[128], val[256], key[64];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < FT_ARRAY_SIZE(modules); i++) {
		snprintf(rel, sizeof(rel), "/sys/module/%s/version", modules[i]);
		snprintf(key, sizeof(key), "driver.%s.version", modules[i]);
		rc = set_if(fp, key, read_line(root, rel, val, sizeof(val)), val);
	}
	return rc;
}

/* /etc/nccl.conf sets NCCL variables for every job (ENV- "How NCCL reads variables"). */
static int
collect_nccl_conf(struct ft_fingerprint *fp, const char *root)
{
	char path[1024], line[512], key[64];
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/etc/nccl.conf", strcmp(root, "/") == 0 ? "" : root);
	f = open_under(root, path);
	if (!f)
		return 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '='), *end;
		char *name = line;

		while (isspace((unsigned char)*name))
			name++;
		if (!eq || *name == '#' || eq == name)
			continue;
		*eq = '\0';
		end = eq;
		while (end > name && isspace((unsigned char)end[-1]))
			*--end = '\0';
		end = eq + 1 + strlen(eq + 1);
		while (end > eq + 1 && isspace((unsigned char)end[-1]))
			*--end = '\0';
		snprintf(key, sizeof(key), "nccl.conf.%.50s", name);
		for (eq++; isspace((unsigned char)*eq);)
			eq++;
		rc = ft_fingerprint_set(fp, key, eq);
	}
	fclose(f);
	return rc;
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

static int
collect_host(struct ft_fingerprint *fp, const char *root)
{
	char val[256];
	long ncpu;
	int rc = 0;

	if (strcmp(root, "/") == 0) {
		struct utsname u;

		if (uname(&u) == 0) {
			rc = ft_fingerprint_set(fp, "host.name", u.nodename);
			if (rc == 0)
				rc = ft_fingerprint_set(fp, "host.kernel", u.release);
			if (rc == 0)
				rc = ft_fingerprint_set(fp, "host.kernel_build", u.version);
			if (rc == 0)
				rc = ft_fingerprint_set(fp, "host.arch", u.machine);
		}
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (rc == 0 && ncpu > 0) {
			snprintf(val, sizeof(val), "%ld", ncpu);
			rc = ft_fingerprint_set(fp, "cpu.count", val);
		}
	} else {
		if (read_line(root, "/etc/hostname", val, sizeof(val)))
			rc = ft_fingerprint_set(fp, "host.name", val);
		if (rc == 0 && read_line(root, "/proc/sys/kernel/osrelease", val, sizeof(val)))
			rc = ft_fingerprint_set(fp, "host.kernel", val);
	}
	if (rc == 0)
		rc = set_if(
		        fp, "host.os",
		        read_field(root, "/etc/os-release", "PRETTY_NAME", '=', val, sizeof(val)),
		        val);
	if (rc == 0)
		rc = set_if(fp, "cpu.model",
		            read_field(root, "/proc/cpuinfo", "model name", ':', val, sizeof(val)),
		            val);
	if (rc == 0 && read_field(root, "/proc/meminfo", "MemTotal", ':', val, sizeof(val))) {
		uint64_t kib;
		char *sp = strchr(val, ' ');

		if (sp)
			*sp = '\0';
		if (ft_parse_u64(val, &kib) == 0) {
			snprintf(val, sizeof(val), "%" PRIu64, kib * 1024);
			rc = ft_fingerprint_set(fp, "mem.total_bytes", val);
		}
	}
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  ..." */
	if (rc == 0 && read_line(root, "/proc/driver/nvidia/version", val, sizeof(val)))
		rc = ft_fingerprint_set(fp, "gpu.driver", val);
	return rc;
}

int
ft_fingerprint_collect_at(struct ft_fingerprint *fp, const char *root, char *const *envp,
                          struct ft_error *err)
{
	int rc;

	if (!root || !root[0])
		root = "/";
	rc = collect_host(fp, root);
	if (rc == 0)
		rc = collect_ib(fp, root);
	if (rc == 0)
		rc = collect_drivers(fp, root);
	if (rc == 0)
		rc = collect_nccl_conf(fp, root);
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

/* ---- from observations (imports) ----------------------------------------- */

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

		if (!o->str[0])
			continue;
		if (strcmp(o->key, "nccl.version") == 0 || strcmp(o->key, "host.kernel") == 0) {
			rc = append_item(fp, o->key, o->str);
		} else if (strncmp(o->key, "nccl.env.", 9) == 0 && o->key[9]) {
			snprintf(key, sizeof(key), "env.%s", o->key + 9);
			rc = append_item(fp, key, o->str);
		} else if (dev_key(o, key, sizeof(key))) {
			rc = append_item(fp, key, o->str);
		}
	}
	if (rc == 0)
		rc = sort_items(fp);
	if (rc < 0)
		fp->items.len = start; /* drop the unsorted tail: the set stays sorted */
	return rc;
}
