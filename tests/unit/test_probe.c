/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_probe.c - the probe over the captured trees under
 * tests/fixtures/sysfs/: the snapshot against its golden JSON
 * (FT_UPDATE_GOLDEN=1 rewrites it), the facts the diagnosis relies on, a
 * host without RDMA, bad configuration, and counter rates over an interval
 * while a thread advances a counter in a copy of the tree.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* cmocka needs the headers above first */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

/* probe/hostcfg.c */
bool ft__memlock_kib(const struct rlimit *rl, char *buf, size_t size, double *kib);

#define TREES "tests/fixtures/sysfs"

static const struct ft_obs *
find_obs(const struct ft_obs_set *set, const char *key, const char *device, int port)
{
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, key) == 0 && (!device || strcmp(o->device, device) == 0) &&
		    (port < 0 || o->port == port))
			return o;
	}
	return NULL;
}

static void
probe(const char *root, double interval, struct ft_obs_set *set)
{
	struct ft_probe_cfg cfg = { .root = root, .interval_s = interval };
	struct ft_error err = { 0 };
	int rc;

	ft_obs_set_init(set);
	rc = ft_probe_host(&cfg, set, &err);
	if (rc)
		fail_msg("probe %s: %s", root, err.msg);
}

static void
test_gpu_node_golden(void **state)
{
	struct ft_obs_set set;
	struct ft_strbuf got, want;
	struct ft_json j;
	struct ft_error err = { 0 };
	const char *golden = TREES "/gpu-node.json";

	probe(TREES "/gpu-node", 0, &set);
	ft_strbuf_init(&got);
	ft_strbuf_init(&want);
	ft_json_init(&j, &got, true);
	ft_parse_obs_to_json(&j, &set);
	ft_strbuf_addch(&got, '\n');
	if (getenv("FT_UPDATE_GOLDEN") && strcmp(getenv("FT_UPDATE_GOLDEN"), "1") == 0) {
		FILE *fp = fopen(golden, "w");

		assert_non_null(fp);
		fwrite(got.buf, 1, got.len, fp);
		fclose(fp);
	} else {
		assert_int_equal(ft_strbuf_read_file(&want, golden, &err), 0);
		assert_int_equal(got.len, want.len);
		assert_memory_equal(got.buf, want.buf, got.len);
	}
	ft_strbuf_release(&got);
	ft_strbuf_release(&want);
	ft_obs_set_release(&set);
}

static void
test_gpu_node_facts(void **state)
{
	struct ft_obs_set set;
	const struct ft_obs *o;

	probe(TREES "/gpu-node", 0, &set);
	o = find_obs(&set, "ib.port.state", "mlx5_0", 1);
	assert_true(o && strcmp(o->str, "Active") == 0 && strcmp(o->host, "gpu07") == 0);
	assert_string_equal(o->file, "sysfs");
	o = find_obs(&set, "ib.port.rate", "mlx5_0", 1);
	assert_true(o && o->num == 400);
	o = find_obs(&set, "ib.port.speed_active", "mlx5_0", 1);
	assert_true(o && strcmp(o->str, "NDR") == 0);
	o = find_obs(&set, "ib.port.phys_state", "mlx5_1", 1);
	assert_true(o && strcmp(o->str, "Polling") == 0);
	/* sysfs counter names come out under perfquery's names */
	o = find_obs(&set, "ib.counter.LinkDownedCounter", "mlx5_0", 1);
	assert_true(o && o->num == 1);
	o = find_obs(&set, "ib.counter.PortXmitData", "mlx5_0", 1);
	assert_true(o && strcmp(o->unit, "4B") == 0);
	o = find_obs(&set, "ib.hw_counter.out_of_sequence", "mlx5_2", 1);
	assert_true(o && o->num == 17);
	/* RoCE port with only zero GIDs */
	o = find_obs(&set, "roce.gid.count", "mlx5_2", 1);
	assert_true(o && o->num == 0);
	assert_null(find_obs(&set, "roce.gid.index", "mlx5_2", -1));
	/* PCIe x8 of x16 */
	o = find_obs(&set, "pcie.link.width_cur", "mlx5_2", -1);
	assert_true(o && o->num == 8);
	o = find_obs(&set, "pcie.link.width_max", "mlx5_2", -1);
	assert_true(o && o->num == 16);
	o = find_obs(&set, "numa.node", "mlx5_2", -1);
	assert_true(o && o->num == 1);
	o = find_obs(&set, "eth.link.mtu", "ens2f0", -1);
	assert_true(o && o->num == 1500);
	/* GPU-NIC paths from the PCI tree */
	o = find_obs(&set, "gpu.nic_path", "GPU0->mlx5_0", -1);
	assert_true(o && strcmp(o->str, "PIX") == 0);
	o = find_obs(&set, "gpu.nic_path", "GPU0->ens8", -1);
	assert_true(o && strcmp(o->str, "PXB") == 0);
	o = find_obs(&set, "gpu.nic_path", "GPU0->mlx5_2", -1);
	assert_true(o && strcmp(o->str, "SYS") == 0);
	o = find_obs(&set, "gpu.nic_path", "GPU1->mlx5_2", -1);
	assert_true(o && strcmp(o->str, "PHB") == 0);
	o = find_obs(&set, "gpu.count", NULL, -1);
	assert_true(o && o->num == 2);
	/* loopback is not a NIC */
	assert_null(find_obs(&set, "eth.link.mtu", "lo", -1));
	ft_obs_set_release(&set);
}

static void
test_no_rdma(void **state)
{
	struct ft_obs_set set;
	const struct ft_obs *o;

	probe(TREES "/no-rdma", 0, &set);
	for (size_t i = 0; i < ft_obs_set_len(&set); i++)
		assert_int_not_equal(strncmp(ft_obs_set_at(&set, i)->key, "ib.", 3), 0);
	o = find_obs(&set, "eth.link.mtu", "eth0", -1);
	assert_true(o && o->num == 1500 && strcmp(o->host, "vm1") == 0);
	assert_null(find_obs(&set, "eth.link.speed", "eth0", -1));
	ft_obs_set_release(&set);
}

/* The GPU's name from the NVIDIA driver's /proc file (a real capture), on its PCI device. */
static void
test_gpu_model(void **state)
{
	struct ft_obs_set set;
	const struct ft_obs *o;

	probe(TREES "/a10g-vm", 0, &set);
	o = find_obs(&set, "gpu.model", "GPU0", -1);
	assert_true(o && strcmp(o->str, "NVIDIA A10G") == 0 && strcmp(o->host, "vm-a10g") == 0);
	assert_true(find_obs(&set, "gpu.count", NULL, -1)->num == 1);
	ft_obs_set_release(&set);
	/* no driver file, no model: gpu-node's H100s are PCI devices only */
	probe(TREES "/gpu-node", 0, &set);
	assert_null(find_obs(&set, "gpu.model", NULL, -1));
	ft_obs_set_release(&set);
}

static void
test_bad_config(void **state)
{
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	struct ft_probe_cfg cfg = { .root = TREES "/no-such-tree" };

	ft_obs_set_init(&set);
	assert_int_equal(ft_probe_host(&cfg, &set, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no-such-tree"));
	ft_error_clear(&err);
	cfg.root = TREES "/gpu-node";
	cfg.interval_s = -1;
	assert_int_equal(ft_probe_host(&cfg, &set, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, "interval"));
	assert_int_equal(ft_obs_set_len(&set), 0);
	ft_obs_set_release(&set);
}

/*
 * The RDMA devices alone are exactly what the whole probe says first (its
 * InfiniBand class part, ib.* and roce.* keys), in the same order with the
 * same values: one reader of sysfs for the probe and the fingerprint. A
 * tree without the class gives none.
 */
/* ft_probe_host_facts() of @root into a fresh @set; the number of observations. */
static size_t
host_facts(const char *root, struct ft_obs_set *set)
{
	struct ft_error err = { 0 };

	ft_obs_set_init(set);
	assert_int_equal(ft_probe_host_facts(root, set, &err), 0);
	return ft_obs_set_len(set);
}

/*
 * The host facts of gpu-node: the values its files hold (README.md beside
 * the trees), one driver.version per module with the module as device, the
 * nccl.conf lines without the comments; a tree with none of the files says
 * only its name; uname's facts come from the live host only.
 */
static void
test_host_facts(void **state)
{
	static const char *const want[][3] = { /* key, device, value */
		{ "host.name", "", "gpu07" },
		{ "host.kernel", "", "5.15.0-91-generic" },
		{ "host.os", "", "Ubuntu 22.04.3 LTS" },
		{ "cpu.model", "", "Intel(R) Xeon(R) Platinum 8480+" },
		{ "mem.total_bytes", "", "2164373430272" },
		{ "gpu.driver", "",
		  "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023" },
		{ "driver.version", "mlx5_core", "23.10-1.1.9" },
		{ "driver.version", "mlx5_ib", "23.10-1.1.9" },
		{ "driver.version", "ib_core", "23.10-1.1.9" },
		{ "driver.version", "nvidia", "535.129.03" },
		{ "driver.version", "nvidia_peermem", "1.1" },
		{ "nccl.conf.NCCL_IB_TIMEOUT", "", "22" },
		{ "nccl.conf.NCCL_SOCKET_IFNAME", "", "ens8" },
		{ "nccl.conf.NCCL_IB_HCA", "", "" },
	};
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	const struct ft_obs *o;
	size_t i;

	(void)state;
	assert_int_equal(host_facts(TREES "/gpu-node/", &set), FT_ARRAY_SIZE(want));
	for (i = 0; i < FT_ARRAY_SIZE(want); i++) {
		o = find_obs(&set, want[i][0], want[i][1], -1);
		assert_non_null(o);
		assert_string_equal(o->str, want[i][2]);
		assert_string_equal(o->host, "gpu07");
		assert_string_equal(o->file, "sysfs");
	}
	o = find_obs(&set, "mem.total_bytes", "", -1);
	assert_true(o->has_num && o->num == 2113645928.0 * 1024);
	assert_string_equal(o->unit, "bytes");
	assert_null(find_obs(&set, "nccl.conf.NCCL_DEBUG", "", -1)); /* commented out */
	assert_null(find_obs(&set, "host.arch", "", -1));
	ft_obs_set_release(&set);

	assert_int_equal(host_facts(TREES "/no-rdma", &set), 1);
	assert_string_equal(ft_obs_set_at(&set, 0)->str, "vm1");
	ft_obs_set_release(&set);

	assert_int_equal(host_facts(TREES "/no-such-tree", &set), 0);
	ft_obs_set_release(&set);

	assert_true(host_facts("/", &set) > 0);
	assert_non_null(find_obs(&set, "host.kernel", "", -1));
	assert_non_null(find_obs(&set, "host.arch", "", -1));
	o = find_obs(&set, "cpu.count", "", -1);
	assert_non_null(o);
	assert_true(o->has_num && o->num >= 1);
	ft_obs_set_release(&set);
	assert_int_equal(ft_probe_host_facts("/", NULL, &err), FT_EINVAL);
}

static void
test_rdma_devices(void **state)
{
	struct ft_obs_set all, dev;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	ft_obs_set_init(&all);
	ft_obs_set_init(&dev);
	probe(TREES "/gpu-node", 0, &all);
	assert_int_equal(ft_probe_rdma_devices(TREES "/gpu-node/", &dev, &err), 0);
	assert_true(ft_obs_set_len(&dev) > 0);
	assert_true(ft_obs_set_len(&dev) < ft_obs_set_len(&all));
	for (i = 0; i < ft_obs_set_len(&dev); i++) {
		const struct ft_obs *a = ft_obs_set_at(&all, i), *d = ft_obs_set_at(&dev, i);

		assert_true(strncmp(d->key, "ib.", 3) == 0 || strncmp(d->key, "roce.", 5) == 0);
		assert_string_equal(d->key, a->key);
		assert_string_equal(d->host, a->host);
		assert_string_equal(d->device, a->device);
		assert_int_equal(d->port, a->port);
		assert_string_equal(d->str, a->str);
		assert_true(d->has_num == a->has_num && (!a->has_num || d->num == a->num));
	}
	/* nothing of the class is left after the prefix */
	for (; i < ft_obs_set_len(&all); i++)
		assert_true(strncmp(ft_obs_set_at(&all, i)->key, "ib.dev.", 7) != 0);
	assert_string_equal(find_obs(&dev, "ib.dev.fw_ver", "mlx5_1", -1)->str, "28.39.1002");
	ft_obs_set_release(&dev);
	ft_obs_set_init(&dev);
	assert_int_equal(ft_probe_rdma_devices(TREES "/no-rdma", &dev, &err), 0);
	assert_int_equal(ft_obs_set_len(&dev), 0);
	ft_obs_set_release(&dev);
	ft_obs_set_release(&all);
}

struct bump {
	char path[512];
};

static void *
bump_counter(void *arg)
{
	struct bump *b = arg;
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	FILE *fp;

	nanosleep(&ts, NULL);
	fp = fopen(b->path, "w");
	if (fp) {
		fputs("22345\n", fp); /* +10000 */
		fclose(fp);
	}
	return NULL;
}

static void
test_interval_rates(void **state)
{
	char tmp[] = "/tmp/ft-probe-XXXXXX", cmd[1024];
	struct bump b;
	pthread_t th;
	struct ft_obs_set set;
	const struct ft_obs *o;

	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "cp -a " TREES "/gpu-node %s/", tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(b.path, sizeof(b.path),
	         "%s/gpu-node/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", tmp);
	snprintf(cmd, sizeof(cmd), "%s/gpu-node", tmp);
	assert_int_equal(pthread_create(&th, NULL, bump_counter, &b), 0);
	probe(cmd, 0.5, &set);
	pthread_join(th, NULL);
	o = find_obs(&set, "ib.counter.PortXmitWait.rate", "mlx5_0", 1);
	assert_non_null(o);
	/* 10000 ticks over about half a second */
	assert_true(o->num > 10000 / 0.9 && o->num < 10000 / 0.4);
	assert_string_equal(o->unit, "count/s");
	o = find_obs(&set, "ib.counter.SymbolErrorCounter.rate", "mlx5_0", 1);
	assert_true(o && o->num == 0);
	assert_non_null(find_obs(&set, "eth.counter.rx_bytes.rate", "ib0", -1));
	/* the first snapshot is all there, with the old value */
	o = find_obs(&set, "ib.counter.PortXmitWait", "mlx5_0", 1);
	assert_true(o && o->num == 12345);
	ft_obs_set_release(&set);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

/* The snapshot document: the root, the interval unless stable, every observation. */
/* The host.iommu of a probe of @root, or NULL (and the count of them in *@n). */
static const char *
probe_iommu(const char *root, struct ft_obs_set *set, size_t *n)
{
	const struct ft_obs *o = NULL;

	probe(root, 0, set);
	*n = 0;
	for (size_t i = 0; i < ft_obs_set_len(set); i++)
		if (strcmp(ft_obs_set_at(set, i)->key, "host.iommu") == 0) {
			o = ft_obs_set_at(set, i);
			(*n)++;
		}
	return o ? o->str : NULL;
}

/*
 * The IOMMU mode (HOST-ACS): a group that translates ("DMA-FQ") wins over a
 * VFIO one ("unmanaged") and over the command line's intel_iommu=on;
 * identity groups are "pt"; without the groups folder the command line
 * decides (amd_iommu=off), and a tree with neither says nothing; an empty
 * groups folder is a host without an IOMMU.
 */
static void
test_iommu(void **state)
{
	char dir[] = "/tmp/ft-iommu-XXXXXX", path[256];
	struct ft_obs_set set;
	const char *v;
	size_t n;

	(void)state;
	v = probe_iommu(TREES "/iommu-dma", &set, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v, "DMA-FQ");
	assert_string_equal(find_obs(&set, "host.iommu", "", -1)->host, "gpu09");
	ft_obs_set_release(&set);
	v = probe_iommu(TREES "/iommu-pt", &set, &n);
	assert_true(n == 1 && strcmp(v, "pt") == 0);
	ft_obs_set_release(&set);
	v = probe_iommu(TREES "/iommu-off-cmdline", &set, &n);
	assert_true(n == 1 && strcmp(v, "off") == 0);
	ft_obs_set_release(&set);
	v = probe_iommu(TREES "/no-rdma", &set, &n);
	assert_int_equal(n, 0);
	ft_obs_set_release(&set);
	v = probe_iommu(TREES "/gpu-node", &set, &n);
	assert_int_equal(n, 0);
	ft_obs_set_release(&set);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sys", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/iommu_groups", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	v = probe_iommu(dir, &set, &n);
	assert_true(n == 1 && strcmp(v, "off") == 0);
	ft_obs_set_release(&set);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/sys", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * RLIMIT_MEMLOCK as `ulimit -l` shows it (HOST-LIMITS): whole KiB, or
 * "unlimited"; and a captured tree has no limit of its own to report.
 */
static void
test_memlock(void **state)
{
	struct rlimit rl = { .rlim_cur = 64 * 1024, .rlim_max = RLIM_INFINITY };
	struct ft_obs_set set;
	char buf[32];
	double kib = -1;

	(void)state;
	assert_true(ft__memlock_kib(&rl, buf, sizeof(buf), &kib));
	assert_string_equal(buf, "64");
	assert_true(kib == 64);
	rl.rlim_cur = 8ull << 30; /* 8 GiB, past 32 bits of bytes */
	assert_true(ft__memlock_kib(&rl, buf, sizeof(buf), &kib));
	assert_string_equal(buf, "8388608");
	assert_true(kib == 8388608);
	rl.rlim_cur = RLIM_INFINITY;
	assert_false(ft__memlock_kib(&rl, buf, sizeof(buf), &kib));
	assert_string_equal(buf, "unlimited");

	probe(TREES "/gpu-node", 0, &set);
	assert_null(find_obs(&set, "host.memlock", NULL, -1));
	ft_obs_set_release(&set);
}

/*
 * host.acs from `lspci -vvv` on the live host: a stand-in lspci on PATH
 * prints a real output (the rccl #547 bridge); as root the probe keeps its
 * ACSCtl flags, named by the probed host, and none of the other lspci keys
 * (sysfs gives the links); as another user it does not run lspci at all.
 */
static void
test_acs_from_lspci(void **state)
{
	char dir[] = "/tmp/ft-lspci-XXXXXX", tool[256], cwd[512], *old_path;
	struct ft_probe_cfg cfg = { .root = "/", .run_tools = true, .host = "h1" };
	struct ft_error err = { 0 };
	struct ft_obs_set set;
	const struct ft_obs *o;
	FILE *f;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	snprintf(tool, sizeof(tool), "%s/lspci", dir);
	f = fopen(tool, "w");
	assert_non_null(f);
	fprintf(f,
	        "#!/bin/sh\nPATH=/usr/bin:/bin sed '1,/^# ---$/d' '%s/tests/fixtures/lspci/"
	        "lspci-vvv-epyc-gpp-bridge-acs-on-rccl547.txt'\n",
	        cwd);
	fclose(f);
	assert_int_equal(chmod(tool, 0700), 0);
	old_path = strdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", dir, 1);

	/* The live probe loads hwloc's plugins, which unload with memory a leak checker
	 * reports at exit from no module it can name: probe in a child that leaves with
	 * _exit(), its verdict in the exit status. */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bool ok;

		ft_obs_set_init(&set);
		ok = ft_probe_host(&cfg, &set, &err) == 0;
		o = find_obs(&set, "host.acs", "40:01.1", -1);
		if (geteuid() == 0)
			ok = ok && o &&
			     strcmp(o->str, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ "
			                    "UpstreamFwd+ EgressCtrl- DirectTrans-") == 0 &&
			     strcmp(o->host, "h1") == 0;
		else
			ok = ok && !o;
		ok = ok && !find_obs(&set, "pcie.device", "40:01.1", -1);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	setenv("PATH", old_path, 1);
	free(old_path);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(unlink(tool), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void
test_write_json(void **state)
{
	struct ft_probe_cfg cfg = { .root = "tests/fixtures", .interval_s = 2 };
	struct ft_obs_set set;
	struct ft_obs o;
	struct ft_strbuf sb;

	(void)state;
	ft_obs_set_init(&set);
	ft_obs_init(&o, "net.mtu");
	o.has_num = true;
	o.num = 9000;
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	ft_strbuf_init(&sb);
	ft_probe_write_json(&cfg, &set, false, &sb);
	assert_non_null(strstr(sb.buf, "\"root\":\"tests/fixtures\""));
	assert_non_null(strstr(sb.buf, "\"interval_s\":2"));
	assert_non_null(strstr(sb.buf, "\"key\":\"net.mtu\""));
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	ft_strbuf_release(&sb);
	ft_strbuf_init(&sb);
	ft_probe_write_json(&cfg, &set, true, &sb);
	assert_null(strstr(sb.buf, "interval_s"));
	ft_strbuf_release(&sb);
	ft_obs_set_release(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_node_golden), cmocka_unit_test(test_gpu_node_facts),
		cmocka_unit_test(test_no_rdma), cmocka_unit_test(test_gpu_model),
		        cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_interval_rates), cmocka_unit_test(test_rdma_devices),
		cmocka_unit_test(test_host_facts),
		cmocka_unit_test(test_iommu),
		cmocka_unit_test(test_memlock),
		cmocka_unit_test(test_acs_from_lspci),
		cmocka_unit_test(test_write_json),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
