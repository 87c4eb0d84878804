/* The machine's peak float32 FMA throughput, for bench/ort.py.
 *
 *   clang -O3 -march=native -fopenmp bench/fma_peak.c -o fma_peak
 *   ./fma_peak [THREADS [SECONDS]]
 *
 * Every thread runs CHAINS independent chains of vector FMAs (acc = acc * m
 * + a) on registers of the widest vector the compiler targets (512, 256 or
 * 128 bits), enough chains to cover the FMA latency on every FMA port. The
 * best of a few repetitions, each about SECONDS / 5 (default 1 s in all), is
 * printed as one JSON line:
 *
 *   {"threads": T, "vector_bits": B, "gflops": G, "ghz_equivalent": H}
 *
 * where G counts 2 flops per lane per FMA and H = G / (T * 2 * lanes * 2) is
 * the clock at which two FMA units per core would give G (for reading G
 * against the CPU's nominal frequency, not a measurement of it). */

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vec;
#define LANES 16
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define SET1(x) _mm512_set1_ps(x)
#define SUM(v) _mm512_reduce_add_ps(v)
#elif defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
typedef __m256 vec;
#define LANES 8
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define SET1(x) _mm256_set1_ps(x)
static float SUM(__m256 v) {
  float lanes[8];
  _mm256_storeu_ps(lanes, v);
  float s = 0;
  for (int i = 0; i < 8; ++i)
    s += lanes[i];
  return s;
}
#else
#error "fma_peak.c needs FMA (AVX2 or AVX-512): compile with -march=native"
#endif

/* Independent chains per thread: 2 FMA ports x 4-5 cycles of latency need at
 * least 10; 12 leaves headroom and still fits in 16 vector registers. */
#define CHAINS 12
#define ITERATIONS_PER_CALL 1000
#define MAX_THREADS 1024

/* ITERATIONS_PER_CALL x CHAINS dependent-per-chain FMAs; returns a sum that
 * the caller keeps so that nothing is optimized away. */
static float kernel(long calls, float seed) {
  vec acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = SET1(seed + (float)c);
  /* Close to 1 so that the values neither overflow nor become denormal. */
  const vec m = SET1(0.999999f), a = SET1(1e-7f);
  for (long n = 0; n < calls; ++n) {
    for (int i = 0; i < ITERATIONS_PER_CALL; ++i) {
#pragma clang loop unroll(full)
      for (int c = 0; c < CHAINS; ++c)
        acc[c] = FMA(acc[c], m, a);
    }
    /* Keeps the compiler from reasoning across the outer loop. */
    __asm__ volatile("" : "+x"(acc[0]));
  }
  float s = 0;
  for (int c = 0; c < CHAINS; ++c)
    s += SUM(acc[c]);
  return s;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  if (threads < 1 || threads > MAX_THREADS || seconds <= 0) {
    fprintf(stderr, "usage: fma_peak [THREADS [SECONDS]]\n");
    return 2;
  }
  omp_set_dynamic(0);
  omp_set_num_threads(threads);

  /* Size a repetition from a short calibration run on one thread. */
  long calls = 100;
  double start = omp_get_wtime();
  volatile float sink = kernel(calls, 1.0f);
  double once = omp_get_wtime() - start;
  const int repetitions = 5;
  calls = (long)(calls * (seconds / repetitions) / (once > 1e-9 ? once : 1e-9));
  if (calls < 1)
    calls = 1;

  float sums[MAX_THREADS] = {0};
  double best = 0;
  for (int r = 0; r < repetitions; ++r) {
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp master
      t0 = omp_get_wtime();
      int t = omp_get_thread_num();
      sums[t] += kernel(calls, 1.0f + (float)t);
#pragma omp barrier
#pragma omp master
      t1 = omp_get_wtime();
    }
    double flops = 2.0 * LANES * CHAINS * (double)ITERATIONS_PER_CALL *
                   (double)calls * threads;
    double gflops = flops / (t1 - t0) / 1e9;
    if (gflops > best)
      best = gflops;
  }
  for (int t = 0; t < threads; ++t)
    sink += sums[t] * 0.0f;
  printf("{\"threads\": %d, \"vector_bits\": %d, \"gflops\": %.2f, "
         "\"ghz_equivalent\": %.3f}\n",
         threads, LANES * 32, best, best / (threads * 2.0 * LANES * 2.0));
  return 0;
}
