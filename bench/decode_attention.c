/* A decoding step's attention written by hand, for comparison with tfm's
 * (docs/generation.md, "What is short"): the twelve layers of a batch-8
 * GPT-2-small step, 12 x 96 heads of one query row against N cached
 * positions of 64 floats, keys then values, each head's cache within a
 * room of CAP positions as tfm's caches lie. One thread per head
 * (OpenMP's static schedule over all heads); each head's two loops
 * prefetch DIST rows ahead as tfm's do, with the scores materialised and
 * softmaxed between them, in AVX-512 vectors where the compiler targets
 * them and AVX2 and FMA's otherwise. A 256 MiB sweep before each pass
 * evicts the caches, as a step's weights do.
 *
 *   clang -O3 -march=native -fopenmp bench/decode_attention.c -lm -o dec
 *   OMP_NUM_THREADS=2 ./dec [N [DIST]]
 *
 * N defaults to 129, DIST to 64. Prints the best of 15 passes: its time and
 * the rate it read the keys and values at (10^9 bytes per second). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <immintrin.h>
#include <omp.h>

enum { D = 64, CAP = 1033, HEADS = 12 * 96, MAX_N = 2048 };

#ifdef __AVX512F__
typedef __m512 vec;
enum { W = 16 };
#define LOAD _mm512_loadu_ps
#define STORE _mm512_storeu_ps
#define FMA _mm512_fmadd_ps
#define SPLAT _mm512_set1_ps
#define ZERO _mm512_setzero_ps
#define MUL _mm512_mul_ps
static float lanes_sum(vec x) { return _mm512_reduce_add_ps(x); }
#else /* AVX2 and FMA */
typedef __m256 vec;
enum { W = 8 };
#define LOAD _mm256_loadu_ps
#define STORE _mm256_storeu_ps
#define FMA _mm256_fmadd_ps
#define SPLAT _mm256_set1_ps
#define ZERO _mm256_setzero_ps
#define MUL _mm256_mul_ps
static float lanes_sum(vec x) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}
#endif

static void prefetch_row(const float *row) {
  for (int l = 0; l < D; l += 16)
    _mm_prefetch((const char *)(row + l), _MM_HINT_T0);
}

static void head(const float *q, const float *k, const float *v, int n,
                 int dist, float *out, float *s) {
  vec qv[D / W];
  for (int d = 0; d < D / W; ++d)
    qv[d] = LOAD(q + d * W);
  float m = -INFINITY, sum = 0;
  for (int j = 0; j < n; ++j) {
    const float *row = k + (size_t)j * D;
    if (j + dist < n)
      prefetch_row(row + (size_t)dist * D);
    vec dot = ZERO();
    for (int d = 0; d < D / W; ++d)
      dot = FMA(qv[d], LOAD(row + d * W), dot);
    s[j] = lanes_sum(dot) * 0.125f;
  }
  /* The softmax's passes over the scores, as tfm's. */
  for (int j = 0; j < n; ++j)
    m = fmaxf(m, s[j]);
  for (int j = 0; j < n; ++j) {
    s[j] = expf(s[j] - m);
    sum += s[j];
  }
  vec acc[D / W];
  for (int d = 0; d < D / W; ++d)
    acc[d] = ZERO();
  for (int j = 0; j < n; ++j) {
    const float *row = v + (size_t)j * D;
    if (j + dist < n)
      prefetch_row(row + (size_t)dist * D);
    vec p = SPLAT(s[j]);
    for (int d = 0; d < D / W; ++d)
      acc[d] = FMA(p, LOAD(row + d * W), acc[d]);
  }
  for (int d = 0; d < D / W; ++d)
    STORE(out + d * W, MUL(acc[d], SPLAT(1.0f / sum)));
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 129;
  int dist = argc > 2 ? atoi(argv[2]) : 64;
  if (n < 1 || n > CAP || dist < 0) {
    fprintf(stderr, "usage: %s [N (1-%d) [DIST]]\n", argv[0], CAP);
    return 2;
  }
  size_t per = (size_t)CAP * D, sweep = (size_t)256 << 20;
  float *k = aligned_alloc(64, per * HEADS * sizeof(float));
  float *v = aligned_alloc(64, per * HEADS * sizeof(float));
  float *out = aligned_alloc(64, (size_t)HEADS * D * sizeof(float));
  char *flush = malloc(sweep);
  if (!k || !v || !out || !flush) {
    fprintf(stderr, "error: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < per * HEADS; ++i) {
    k[i] = (float)(i % 7) * 0.01f;
    v[i] = (float)(i % 5) * 0.01f;
  }
  memset(flush, 1, sweep);
  float q[D];
  for (int d = 0; d < D; ++d)
    q[d] = 0.1f;
  double best = INFINITY;
  for (int pass = 0; pass < 15; ++pass) {
    volatile long evict = 0;
    for (size_t i = 0; i < sweep; i += 64)
      evict += flush[i];
    double start = omp_get_wtime();
#pragma omp parallel
    {
      float s[MAX_N];
#pragma omp for schedule(static)
      for (int h = 0; h < HEADS; ++h)
        head(q, k + per * h, v + per * h, n, dist, out + (size_t)h * D, s);
    }
    double seconds = omp_get_wtime() - start;
    if (seconds < best)
      best = seconds;
  }
  double bytes = 2.0 * HEADS * n * D * sizeof(float);
  printf("N=%d DIST=%d: %.3f ms for 12 layers, %.1f GB/s (out[0] %g)\n", n,
         dist, best * 1e3, bytes / best / 1e9, out[0]);
  free(flush);
  free(out);
  free(v);
  free(k);
  return 0;
}
