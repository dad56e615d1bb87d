/* SPDX-License-Identifier: MIT */
/*
 * bench/mpi_pt2pt.c - the peer for fabtune's point-to-point figures: a bare
 * MPI ping-pong (as osu_latency) and a windowed stream (as osu_bw), timed
 * the way fabtune's pt2pt_lat and pt2pt_bw time theirs.
 *
 *   mpicc -O2 -o mpi_pt2pt bench/mpi_pt2pt.c
 *   mpirun -np 2 ./mpi_pt2pt lat|bw MINBYTES MAXBYTES ITERS WARMUP WINDOW
 *
 * Sizes go up by factors of 2 (of 4 with a negative MINBYTES' absolute
 * value). One line per size on rank 0: "bytes p50_us p99_us" for lat (one
 * way: half the round trip, per iteration, the iterations' samples
 * tiling the loop), "bytes GB/s" for bw (bytes
 * received by rank 1 over the time of ITERS windows of WINDOW messages).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	long minb, maxb, size, factor = 2;
	int iters, warmup, window, rank, i, k;
	char *buf;
	double *t;
	MPI_Request *req;
	int lat;

	MPI_Init(&argc, &argv);
	if (argc != 7) {
		fprintf(stderr, "usage: mpi_pt2pt lat|bw MINBYTES MAXBYTES ITERS WARMUP WINDOW\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	lat = strcmp(argv[1], "lat") == 0;
	minb = strtol(argv[2], NULL, 10);
	if (minb < 0) {
		minb = -minb;
		factor = 4;
	}
	maxb = strtol(argv[3], NULL, 10);
	iters = (int)strtol(argv[4], NULL, 10);
	warmup = (int)strtol(argv[5], NULL, 10);
	window = (int)strtol(argv[6], NULL, 10);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	buf = malloc((size_t)maxb);
	t = calloc((size_t)iters, sizeof(*t));
	req = calloc((size_t)window, sizeof(*req));
	if (!buf || !t || !req)
		MPI_Abort(MPI_COMM_WORLD, 3);
	memset(buf, 1, (size_t)maxb);
	for (size = minb; size <= maxb; size *= factor) {
		MPI_Barrier(MPI_COMM_WORLD);
		if (lat) {
			/*
			 * The clock is read once a round trip, by rank 0 only: the
			 * read that ends one round trip starts the next, so the
			 * samples tile the loop and the loop's own work between two
			 * round trips (the sample's store, the loop's test) counts
			 * in the later one, as in fabtune's ping-pong (src/bench/
			 * patterns.c, ft__bench_pingpong; osu_latency times the
			 * whole loop at once). Read at both ends of each round
			 * trip, a sample left that work and most of one MPI_Wtime
			 * call out, which fabtune's samples hold.
			 */
			double tprev = rank == 0 ? MPI_Wtime() : 0;

			for (i = 0; i < warmup + iters; i++) {
				if (rank == 0) {
					double t0 = tprev;

					MPI_Send(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
					         MPI_STATUS_IGNORE);
					tprev = MPI_Wtime();
					if (i >= warmup)
						t[i - warmup] = (tprev - t0) * 1e6 / 2;
				} else if (rank == 1) {
					MPI_Recv(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
					         MPI_STATUS_IGNORE);
					MPI_Send(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
				}
			}
			if (rank == 0) {
				qsort(t, (size_t)iters, sizeof(*t), cmp_double);
				printf("%ld %.3f %.3f\n", size, t[iters / 2],
				       t[(size_t)((double)iters * 0.99)]);
			}
		} else {
			double t0 = 0;
			char ack = 0;

			for (i = 0; i < warmup + iters; i++) {
				if (i == warmup)
					t0 = MPI_Wtime();
				for (k = 0; k < window && rank < 2; k++) {
					if (rank == 0)
						MPI_Isend(buf, (int)size, MPI_CHAR, 1, 2, MPI_COMM_WORLD,
						          &req[k]);
					else
						MPI_Irecv(buf, (int)size, MPI_CHAR, 0, 2, MPI_COMM_WORLD,
						          &req[k]);
				}
				if (rank < 2)
					MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
			}
			/* the receiver's clock: the last byte in, as fabtune's rank 1 */
			if (rank == 1) {
				double gbps = (double)size * window * iters / (MPI_Wtime() - t0) / 1e9;

				MPI_Send(&gbps, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
			} else if (rank == 0) {
				double gbps;

				MPI_Recv(&gbps, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				printf("%ld %.3f\n", size, gbps);
			}
			(void)ack;
		}
		fflush(stdout);
	}
	free(req);
	free(t);
	free(buf);
	MPI_Finalize();
	return 0;
}
