/* SPDX-License-Identifier: MIT */
/*
 * probe/gather.c - every node probes, rank 0 gathers: MPI_Gather of the
 * counts, then MPI_Gatherv of the records and of their files, in rank order.
 * One host speaks once: with several ranks per host (mpirun -np 4 on one
 * node) only the first rank of each host name is kept, so a host never
 * appears 4 times. Callers skip the probe itself on ranks that are not their
 * host's leader (ft_launch_is_host_leader()); this catches launchers that
 * give no local rank.
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

/* The files of @set, each followed by a NUL, in order: what travels beside the records. */
static char *
files_blob(const struct ft_obs_set *set, int *len)
{
	size_t i, n = 0;
	char *blob, *p;

	for (i = 0; i < ft_obs_set_len(set); i++)
		n += strlen(ft_obs_set_at(set, i)->file) + 1;
	*len = 0;
	if (n > (size_t)INT_MAX || !(blob = ft_malloc(n ? n : 1)))
		return NULL;
	for (p = blob, i = 0; i < ft_obs_set_len(set); i++) {
		size_t k = strlen(ft_obs_set_at(set, i)->file) + 1;

		memcpy(p, ft_obs_set_at(set, i)->file, k);
		p += k;
	}
	*len = (int)n;
	return blob;
}

/* Gather @len bytes at @buf from every rank to rank 0 (*out, with *counts and *displs). */
static int
gather_bytes(const void *buf, int len, char **out, int **counts, int **displs, int me, int size,
             struct ft_error *err)
{
	size_t total = 0;
	int rc;

	if (me == 0) {
		*counts = ft_calloc((size_t)size, sizeof(**counts));
		*displs = ft_calloc((size_t)size, sizeof(**displs));
		if (!*counts || !*displs)
			MPI_Abort(MPI_COMM_WORLD, 3); /* the others would wait forever */
	}
	rc = MPI_Gather(&len, 1, MPI_INT, me == 0 ? *counts : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		return mpi_fail(err, "MPI_Gather", rc);
	if (me == 0) {
		for (int i = 0; i < size; i++) {
			if ((*counts)[i] < 0 || (size_t)(*counts)[i] > (size_t)INT_MAX - total)
				MPI_Abort(MPI_COMM_WORLD, 3);
			(*displs)[i] = (int)total;
			total += (size_t)(*counts)[i];
		}
		*out = ft_malloc(total ? total : 1);
		if (!*out)
			MPI_Abort(MPI_COMM_WORLD, 3);
	}
	rc = MPI_Gatherv(buf, len, MPI_BYTE, me == 0 ? *out : NULL, *counts, *displs, MPI_BYTE, 0,
	                 MPI_COMM_WORLD);
	return rc == MPI_SUCCESS ? 0 : mpi_fail(err, "MPI_Gatherv", rc);
}

/*
 * struct ft_obs is fixed-size data but for its file, a pointer: the records
 * travel as bytes (their file pointers meaningless on the wire) and the files
 * as a second message of NUL-terminated strings in the same order.
 */
int
ft_probe_mpi_gather(struct ft_obs_set *set, int *rank, struct ft_error *err)
{
	int rc, size = 1, me = 0, inited = 0, ret = 0, mine, blen = 0;
	int *counts = NULL, *displs = NULL, *fcounts = NULL, *fdispls = NULL;
	char *all = NULL, *files = NULL, *blob = NULL;
	const int rec = (int)sizeof(struct ft_obs);
	struct ft_obs o;

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
	/* out of memory here sends no files: rank 0 then reports the rank */
	blob = files_blob(set, &blen);
	ret = gather_bytes(ft_obs_set_len(set) ? ft_vec_at(&set->v, 0) : NULL, mine, &all, &counts,
	                   &displs, me, size, err);
	if (ret == 0)
		ret = gather_bytes(blob, blen, &files, &fcounts, &fdispls, me, size, err);
	if (ret == 0 && me == 0) {
		set->v.len = 0;
		for (int r = 0; r < size && ret == 0; r++) {
			size_t n = (size_t)counts[r] / (size_t)rec;
			const char *f = files + fdispls[r], *fend = f + fcounts[r];
			bool seen = false;

			/* a host already heard from an earlier rank: the same probe again */
			if (n > 0) {
				memcpy(&o, all + (size_t)displs[r], sizeof(o));
				o.host[sizeof(o.host) - 1] = '\0';
				for (size_t k = 0; o.host[0] && k < set->v.len && !seen; k++)
					seen = strcmp(ft_obs_set_at(set, k)->host, o.host) == 0;
			}
			if (seen)
				continue;

			for (size_t i = 0; i < n && ret == 0; i++) {
				const char *nul = memchr(f, '\0', (size_t)(fend - f));

				if (!nul) {
					ret = ft_error_set(err, FT_EMPI,
					                   "probe: rank %d: the file of observation "
					                   "%zu did not arrive",
					                   r, i);
					break;
				}
				/* records from the wire: terminate the strings, tag the rank */
				memcpy(&o, all + (size_t)displs[r] + i * (size_t)rec, sizeof(o));
				o.host[sizeof(o.host) - 1] = '\0';
				o.device[sizeof(o.device) - 1] = '\0';
				o.key[sizeof(o.key) - 1] = '\0';
				o.str[sizeof(o.str) - 1] = '\0';
				o.unit[sizeof(o.unit) - 1] = '\0';
				o.file = f;
				f = nul + 1;
				if (o.rank < 0)
					o.rank = r;
				if (ft_obs_set_add(set, &o) < 0)
					ret = ft_error_set(err, FT_ENOMEM, "probe: out of memory");
			}
		}
	}
	ft_free(blob);
	ft_free(all);
	ft_free(files);
	ft_free(counts);
	ft_free(displs);
	ft_free(fcounts);
	ft_free(fdispls);
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
