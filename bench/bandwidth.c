/* The machine's memory read bandwidth, for bench/generate.py: a decoding
 * step reads every weight (and the caches) once, so bytes / bandwidth is
 * the fastest a step can be.
 *
 *   clang -O3 -march=native -fopenmp bench/bandwidth.c -o bandwidth
 *   ./bandwidth [THREADS [MIB]]
 *
 * Sums an array of MIB MiB (default 1024: far beyond every cache) of
 * float32 with THREADS threads (default 1), each its own contiguous part,
 * and prints the best of 5 passes as one JSON line:
 *
 *   {"threads": T, "mib": M, "gb_per_s": G}
 *
 * with G in 10^9 bytes read per second. */

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long mib = argc > 2 ? atol(argv[2]) : 1024;
  if (threads < 1 || mib < 1) {
    fprintf(stderr, "usage: %s [THREADS [MIB]]\n", argv[0]);
    return 2;
  }
  size_t n = (size_t)mib * 1024 * 1024 / sizeof(float);
  float *data = aligned_alloc(64, n * sizeof(float));
  if (!data) {
    fprintf(stderr, "error: cannot allocate %ld MiB\n", mib);
    return 1;
  }
  omp_set_num_threads(threads);
  /* Written by the threads that read it, so that its pages are theirs. */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i)
    data[i] = (float)(i & 7);
  double best = 0, total = 0;
  for (int pass = 0; pass < 5; ++pass) {
    double start = omp_get_wtime();
    float sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; ++i)
      sum += data[i];
    double seconds = omp_get_wtime() - start;
    total += sum;
    double rate = n * sizeof(float) / seconds / 1e9;
    if (rate > best)
      best = rate;
  }
  /* The sums are used, so that no pass is optimized away. */
  if (total < 0)
    printf("%f\n", total);
  printf("{\"threads\": %d, \"mib\": %ld, \"gb_per_s\": %.2f}\n", threads, mib,
         best);
  free(data);
  return 0;
}
