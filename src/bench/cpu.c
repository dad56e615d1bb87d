/* SPDX-License-Identifier: MIT */
/*
 * bench/cpu.c - where local ranks run, and whether a waiting rank may spin.
 *
 * Binding (--bind, as mpirun's --bind-to) lasts for one ft_bench_run(): the
 * process gets its mask back at the end. The CPUs this process may use are
 * ordered one hardware thread per physical core first (package, core id,
 * then CPU number), siblings after; local rank i takes the i-th of them
 * (core) or the NUMA node that CPU belongs to (numa). The default (auto)
 * binds to cores when every local rank gets one and the mask was not
 * already narrowed by a launcher, and keeps the mask otherwise: two
 * unbound ranks on a two-core host often land on one core, which is what
 * made an 8-byte shm ping-pong read 6 us instead of 0.4 us beside a busy
 * process. A transport that sleeps in the kernel when it may not spin (tcp)
 * is left unbound then: a wake-up sent to a busy pinned core cost more than
 * it saved (p50 17.8 us bound, 6.2 us unbound, VM with a load of 6 on 2
 * CPUs). A spinning rank that waits on its peer must have its core: the
 * scheduler wakes one unbound tcp rank on the core of the other, which
 * spins there (ping-pong p50 24-533 us unbound, 3.9-4.7 bound, sockperf
 * 7-8, load 10-17; all_reduce 64-256 KiB 0.15-0.57 GB/s busbw unbound,
 * 1.5-2.7 bound). A bandwidth stream (pt2pt_bw) is not bound: both ranks
 * are busy, and on a loaded host a pinned pair moved 1 MiB messages at
 * 0.35-0.70 GB/s where an unbound one moved 0.89-2.11 (the same minutes);
 * the kernel's TCP work runs on whichever core the softirq takes, and the
 * scheduler needs the freedom to move the ranks away from it.
 *
 * Spinning (--spin): auto lets a rank busy-poll when every local rank has a
 * CPU of the mask taken before binding, as Open MPI turns on
 * mpi_yield_when_idle only for an oversubscribed node; always and never
 * force it. The decision is taken once per run from the mask and the count
 * of local ranks, which do not change while it lasts. It used to subtract
 * the CPUs that a 20 ms /proc/stat sample found busy: on a host whose load
 * moves, identical runs then spun or slept by chance and measured two
 * different things (tcp p50 in two modes, bandwidth runs flagged against
 * each other). A spinning rank is still bounded: it sleeps once a wait has
 * seen nothing move for its transport's spin budget (tcp.c, shm.c), and a
 * tcp rank that preemptions cost more than its spins saved stops spinning
 * and is unbound for the rest of the run (ft__cpu_unbind, transport.c).
 */
#include "bench_int.h"

static const char *const bind_names[] = { "auto", "none", "core", "numa" };
_Static_assert(FT_ARRAY_SIZE(bind_names) == FT_BENCH_BIND_COUNT, "bind names");

FT__NAME_GETTER(ft_bench_bind_name, enum ft_bench_bind, bind_names, FT_BENCH_BIND_COUNT)
FT__NAME_SET(ft__bench_binds, bind_names);
FT__FROM_NAME(ft_bench_bind_from_name, enum ft_bench_bind, ft__bench_binds, FT_EINVAL)

static const char *const spin_names[] = { "auto", "always", "never" };
_Static_assert(FT_ARRAY_SIZE(spin_names) == FT_BENCH_SPIN_COUNT, "spin names");

FT__NAME_GETTER(ft_bench_spin_name, enum ft_bench_spin, spin_names, FT_BENCH_SPIN_COUNT)
FT__NAME_SET(ft__bench_spins, spin_names);
FT__FROM_NAME(ft_bench_spin_from_name, enum ft_bench_spin, ft__bench_spins, FT_EINVAL)

/* One integer from a sysfs file, -1 when absent. */
static long
sysfs_long(const char *fmt, int cpu)
{
	char path[128], buf[32];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), fmt, cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

struct cpu_slot {
	int cpu;
	long pkg, core;
	int first; /* 0 for the first thread of its core, 1 for its siblings */
};

static int
slot_cmp(const void *a, const void *b)
{
	const struct cpu_slot *x = a, *y = b;

	if (x->first != y->first)
		return x->first - y->first;
	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->cpu - y->cpu;
}

/* The CPUs of @set ordered one thread per core first; returns how many, and the cores. */
static int
order_cpus(const cpu_set_t *set, struct cpu_slot *out, int cap, int *ncores)
{
	int n = 0, i, j;

	for (i = 0; i < CPU_SETSIZE && n < cap; i++) {
		if (!CPU_ISSET(i, set))
			continue;
		out[n].cpu = i;
		out[n].pkg = sysfs_long("/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		                        i);
		out[n].core = sysfs_long("/sys/devices/system/cpu/cpu%d/topology/core_id", i);
		out[n].first = 0;
		for (j = 0; j < n; j++)
			if (out[j].pkg == out[n].pkg && out[j].core == out[n].core &&
			    out[n].core >= 0)
				out[n].first = 1;
		n++;
	}
	qsort(out, (size_t)n, sizeof(*out), slot_cmp);
	for (*ncores = 0; *ncores < n && out[*ncores].first == 0; (*ncores)++)
		;
	return n;
}

/* "0-3,6" for @set. */
static void
cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	int i, start = -1;

	buf[0] = '\0';
	for (i = 0; i <= CPU_SETSIZE; i++) {
		bool in = i < CPU_SETSIZE && CPU_ISSET(i, set);
		int n;

		if (in && start < 0)
			start = i;
		if (in || start < 0)
			continue;
		if (start == i - 1)
			n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", start);
		else
			n = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", start,
			             i - 1);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
		start = -1;
	}
}

/* The NUMA node of @cpu (-1 unknown) and, in @set, its CPUs. */
static int
numa_of(int cpu, cpu_set_t *set)
{
	int node;

	CPU_ZERO(set);
	for (node = 0; node < 1024; node++) {
		char path[96], buf[512], *p = buf;
		FILE *f;
		bool mine = false;
		cpu_set_t s;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
		f = fopen(path, "r");
		if (!f) {
			if (node > 0)
				break;
			continue;
		}
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		CPU_ZERO(&s);
		while (*p && *p != '\n') {
			char *end;
			long a = strtol(p, &end, 10), b = a, c;

			if (end == p)
				break;
			p = end;
			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (c = a; c <= b && c < CPU_SETSIZE && c >= 0; c++) {
				CPU_SET((int)c, &s);
				mine = mine || c == cpu;
			}
			if (*p == ',')
				p++;
		}
		if (mine) {
			*set = s;
			return node;
		}
	}
	return -1;
}

int
ft__cpu_setup(struct ft_world *w, enum ft_bench_bind mode, enum ft_bench_spin spin, bool sleeps,
              bool stream, struct ft_rank_info *me, struct ft_error *err)
{
	struct cpu_slot slots[CPU_SETSIZE];
	cpu_set_t allowed, target;
	uint32_t idx = 0, local = ft__world_local(w, &idx);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int n, ncores, nallowed;
	const char *how = "none";

	w->spin_forced = spin == FT_BENCH_SPIN_ALWAYS;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		w->may_spin = spin == FT_BENCH_SPIN_ALWAYS ||
		              (spin == FT_BENCH_SPIN_AUTO &&
		               local <= (online > 0 ? (uint32_t)online : 1));
		ft_strlcpy(me->bind, "none", sizeof(me->bind));
		return 0;
	}
	nallowed = CPU_COUNT(&allowed);
	/* once per run, from what does not change while it lasts */
	w->may_spin = spin == FT_BENCH_SPIN_ALWAYS ||
	              (spin == FT_BENCH_SPIN_AUTO && local <= (uint32_t)nallowed);
	n = order_cpus(&allowed, slots, CPU_SETSIZE, &ncores);
	if (mode == FT_BENCH_BIND_AUTO) {
		/* a launcher that narrowed the mask (mpirun --bind-to) has decided */
		if (online > 0 && nallowed < online && (uint32_t)nallowed < local)
			how = "kept";
		else if (sleeps && (!w->may_spin || stream))
			how = "none";
		else if (ncores > 0 && local <= (uint32_t)ncores)
			mode = FT_BENCH_BIND_CORE;
	}
	target = allowed;
	if ((mode == FT_BENCH_BIND_CORE || mode == FT_BENCH_BIND_NUMA) && n > 0) {
		if (mode == FT_BENCH_BIND_CORE && local > (uint32_t)ncores)
			return ft_error_set(err, FT_EINVAL,
			                    "--bind core: %u local ranks but %d cores in this "
			                    "process's CPU mask (use --bind none)",
			                    local, ncores);
		if (mode == FT_BENCH_BIND_CORE) {
			CPU_ZERO(&target);
			CPU_SET(slots[idx % (uint32_t)ncores].cpu, &target);
			how = "core";
		} else {
			cpu_set_t node;

			if (numa_of(slots[idx % (uint32_t)n].cpu, &node) >= 0)
				CPU_AND(&target, &allowed, &node);
			if (CPU_COUNT(&target) == 0)
				target = allowed;
			how = "numa";
		}
		if (sched_setaffinity(0, sizeof(target), &target) < 0)
			return ft_error_set(err, FT_EIO, "--bind %s: sched_setaffinity: %s", how,
			                    strerror(errno));
		w->cpus_before = allowed;
		w->bound = true;
	}
	ft_strlcpy(me->bind, how, sizeof(me->bind));
	cpulist(&target, me->cpus, sizeof(me->cpus));
	return 0;
}

void
ft__cpu_unbind(struct ft_world *w)
{
	if (w->bound && sched_setaffinity(0, sizeof(w->cpus_before), &w->cpus_before) == 0)
		w->bound = false;
}
