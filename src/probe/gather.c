/* SPDX-License-Identifier: MIT */
/*
 * probe/gather.c - every node probes, rank 0 gathers. struct ft_obs is plain
 * fixed-size data, so the records travel as bytes: MPI_Gather of the counts,
 * then MPI_Gatherv of the records, all in rank order. One host speaks once:
 * with several ranks per host (mpirun -np 4 on one node) only the first
 * rank of each host name is kept, so a host never appears 4 times. Callers
 * skip the probe itself on ranks that are not their host's leader
 * (ft_launch_is_host_leader()); this catches launchers that give no local rank.
 */
#include "probe_int.h"

#if FT_HAVE_MPI
#include <mpi.h>
#endif

bool
ft_probe_under_mpi(void)
{
	struct ft_launch l;

	return ft_launch_detect(NULL, &l, NULL) == 0 && l.mpi && ft_launch_is_parallel(&l);
}

#if FT_HAVE_MPI
static int
mpi_fail(struct ft_error *err, const char *what, int code)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
		len = 0;
	msg[len] = '\0';
	return ft_error_set(err, FT_EMPI, "probe: %s failed: %s", what, msg);
}

int
ft_probe_mpi_gather(struct ft_obs_set *set, int *rank, struct ft_error *err)
{
	int rc, size = 1, me = 0, inited = 0, ret = 0;
	int mine, *counts = NULL, *displs = NULL;
	struct ft_obs *all = NULL;
	size_t total = 0;
	const int rec = (int)sizeof(struct ft_obs);

	*rank = 0;
	if (ft_obs_set_len(set) > (size_t)(INT_MAX / rec))
		return ft_error_set(err, FT_ERANGE, "probe: too many observations to gather");
	MPI_Initialized(&inited);
	if (!inited && (rc = MPI_Init(NULL, NULL)) != MPI_SUCCESS)
		return mpi_fail(err, "MPI_Init", rc);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	*rank = me;
	mine = (int)ft_obs_set_len(set) * rec;
	if (me == 0) {
		counts = ft_calloc((size_t)size, sizeof(*counts));
		displs = ft_calloc((size_t)size, sizeof(*displs));
		if (!counts || !displs)
			MPI_Abort(MPI_COMM_WORLD, 3); /* the others would wait forever */
	}
	rc = MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS) {
		ret = mpi_fail(err, "MPI_Gather", rc);
		goto out;
	}
	if (me == 0) {
		for (int i = 0; i < size; i++) {
			if ((size_t)counts[i] > (size_t)INT_MAX - total * (size_t)rec)
				MPI_Abort(MPI_COMM_WORLD, 3);
			displs[i] = (int)(total * (size_t)rec);
			total += (size_t)counts[i] / (size_t)rec;
		}
		all = ft_calloc(total ? total : 1, sizeof(*all));
		if (!all)
			MPI_Abort(MPI_COMM_WORLD, 3);
	}
	rc = MPI_Gatherv(ft_obs_set_len(set) ? ft_vec_at(&set->v, 0) : NULL, mine, MPI_BYTE, all,
	                 counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS) {
		ret = mpi_fail(err, "MPI_Gatherv", rc);
		goto out;
	}
	if (me == 0) {
		set->v.len = 0;
		for (int r = 0; r < size && ret == 0; r++) {
			size_t first = (size_t)displs[r] / (size_t)rec;
			size_t n = (size_t)counts[r] / (size_t)rec;
			bool seen = false;

			/* a host already heard from an earlier rank: the same probe again */
			if (n > 0 && all[first].host[0]) {
				all[first].host[sizeof(all[first].host) - 1] = '\0';
				for (size_t k = 0; k < set->v.len && !seen; k++)
					seen = strcmp(ft_obs_set_at(set, k)->host, all[first].host) == 0;
			}
			if (seen)
				continue;

			for (size_t i = first; i < first + n && ret == 0; i++) {
				/* records from the wire: terminate the strings, tag the rank */
				all[i].host[sizeof(all[i].host) - 1] = '\0';
				all[i].device[sizeof(all[i].device) - 1] = '\0';
				all[i].key[sizeof(all[i].key) - 1] = '\0';
				all[i].str[sizeof(all[i].str) - 1] = '\0';
				all[i].unit[sizeof(all[i].unit) - 1] = '\0';
				all[i].file[sizeof(all[i].file) - 1] = '\0';
				if (all[i].rank < 0)
					all[i].rank = r;
				if (ft_obs_set_add(set, &all[i]) < 0)
					ret = ft_error_set(err, FT_ENOMEM, "probe: out of memory");
			}
		}
	}
out:
	ft_free(all);
	ft_free(counts);
	ft_free(displs);
	if (!inited)
		MPI_Finalize();
	return ret;
}
#else
int
ft_probe_mpi_gather(struct ft_obs_set *set, int *rank, struct ft_error *err)
{
	(void)set;
	*rank = 0;
	return ft_error_set(err, FT_ENOTSUP, "probe: this fabtune was built without MPI");
}
#endif
