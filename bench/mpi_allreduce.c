/* SPDX-License-Identifier: MIT */
/*
 * bench/mpi_allreduce.c - the peer for fabtune's all_reduce figures: a bare
 * timed loop of MPI_Allreduce (float, sum, out-of-place), nothing else.
 *
 *   mpicc -O2 -o mpi_allreduce bench/mpi_allreduce.c
 *   mpirun -np 2 ./mpi_allreduce MINBYTES MAXBYTES ITERS WARMUP [FACTOR]
 *
 * Sizes go from MINBYTES to MAXBYTES, multiplied by FACTOR (2) each step.
 * Prints one line per size: bytes, time per call in microseconds (mean over
 * ranks, as fabtune's -a 1) and busbw in GB/s with nccl-tests' 2(n-1)/n.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	long minb, maxb, size;
	long factor = 2;
	int iters, warmup, rank, n, i;
	float *in, *out;

	MPI_Init(&argc, &argv);
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: mpi_allreduce MINBYTES MAXBYTES ITERS WARMUP [FACTOR]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	minb = strtol(argv[1], NULL, 10);
	maxb = strtol(argv[2], NULL, 10);
	iters = (int)strtol(argv[3], NULL, 10);
	warmup = (int)strtol(argv[4], NULL, 10);
	if (argc == 6)
		factor = strtol(argv[5], NULL, 10);
	if (factor < 2)
		factor = 2;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	in = malloc((size_t)maxb);
	out = malloc((size_t)maxb);
	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 3);
	memset(in, 0, (size_t)maxb);
	memset(out, 0, (size_t)maxb);
	for (size = minb; size <= maxb; size *= factor) {
		int count = (int)(size / 4);
		double t0, mine, sum;

		for (i = 0; i < warmup; i++)
			MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (i = 0; i < iters; i++)
			MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		mine = (MPI_Wtime() - t0) / iters * 1e6;
		MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0)
			printf("%ld %.2f %.4f\n", size, sum / n,
			       (double)size / (sum / n * 1e3) * 2.0 * (n - 1) / n);
	}
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
