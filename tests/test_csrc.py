"""The C helpers in csrc/ on their own: compiled with the system C compiler, no Python."""

import os
import shutil
import subprocess
import sysconfig

import pytest

CSRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "csrc")


def run_program(tmp_path, program: str, *flags: str, sources=()) -> subprocess.CompletedProcess:
    """Compile ``program`` against csrc/ (warnings as errors, ``flags`` added) and run it;
    skips where the sources or a C compiler are missing."""
    if not os.path.isdir(CSRC):
        pytest.skip("csrc/ is only present when the tests run from the source tree")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) on this machine")
    src = tmp_path / "t.c"
    src.write_text(program)
    exe = tmp_path / "t"
    subprocess.run([cc, "-O2", "-std=c11", "-Wall", "-Werror", *flags, f"-I{CSRC}", str(src),
                    *(os.path.join(CSRC, f) for f in sources), "-o", str(exe), "-lm"],
                   check=True, capture_output=True)
    return subprocess.run([str(exe)], capture_output=True, text=True)

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fm_count.h"

/* naive reference: count pairs in range, stop at the first out-of-range pair */
static long naive(const int8_t *yt, const int8_t *yp, long n, long st, int64_t lo, int shift,
                  int64_t *tab) {
    long k = 1L << shift;
    for (long i = 0; i < n; i++) {
        long a = (long)yt[i * st] - lo, b = (long)yp[i * st] - lo;
        if (a < 0 || a >= k || b < 0 || b >= k) return i;
        tab[a * k + b]++;
    }
    return -1;
}

int main(void) {
    srand(12345);
    int failures = 0;
    for (int trial = 0; trial < 400; trial++) {
        long n = rand() % 300, st = 1 + (trial % 3);
        int shift = trial % 7;
        int64_t lo = (trial % 5) - 2;
        int8_t *yt = malloc(n * st + 1), *yp = malloc(n * st + 1);
        for (long i = 0; i < n * st; i++) {
            yt[i] = (int8_t)(lo + rand() % ((1 << shift) + (trial % 4 == 0 ? 2 : 0)));
            yp[i] = (int8_t)(lo + rand() % (1 << shift));
        }
        long kk = 1L << (2 * shift);
        int64_t *banks = calloc(4 * kk, sizeof(int64_t)), *ref = calloc(kk, sizeof(int64_t));
        int64_t bad[2] = {-1, 0};
        fm_count_i8(yt, st, yp, st, 0, n, (uint64_t)lo, shift, banks, bad);
        long want = naive(yt, yp, n, st, lo, shift, ref);
        if (bad[0] != want) { printf("trial %d: bad %ld want %ld\n", trial, (long)bad[0], want); failures++; }
        if (want < 0) {
            for (long c = 0; c < kk; c++) {
                int64_t got = banks[c] + banks[kk + c] + banks[2 * kk + c] + banks[3 * kk + c];
                if (got != ref[c]) { printf("trial %d: cell %ld %ld != %ld\n", trial, c, (long)got, (long)ref[c]); failures++; break; }
            }
        }
        free(yt); free(yp); free(banks); free(ref);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
"""


def test_fm_count_matches_naive_counting(tmp_path):
    out = run_program(tmp_path, PROGRAM)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("0 failures")


LSE_PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fm_lse.h"

/* naive reference in double */
static double naive(const float *x, long n, long st, long t) {
    double m = -INFINITY, s = 0.0;
    for (long i = 0; i < n; i++) if (x[i * st] > m) m = x[i * st];
    for (long i = 0; i < n; i++) s += exp((double)x[i * st] - m);
    return ((double)x[t * st] - m) - log(s);
}

int main(void) {
    srand(7);
    int failures = 0;
    for (int trial = 0; trial < 300; trial++) {
        long n = 1 + rand() % 200, st = 1 + trial % 3, t = rand() % n;
        float *x = malloc(sizeof(float) * n * st);
        uint16_t *h = malloc(sizeof(uint16_t) * n);
        double *d = malloc(sizeof(double) * n);
        for (long i = 0; i < n * st; i++) x[i] = (float)((rand() / (double)RAND_MAX - 0.5) * 40.0);
        int g1, g2, g3;
        double want = naive(x, n, st, t);
        double got = fm_logprob_f32(x, st, n, t, &g1);
        if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9) { printf("f32 %d: %g %g\n", trial, got, want); failures++; }
        for (long i = 0; i < n; i++) d[i] = x[i * st];
        got = fm_logprob_f64(d, 1, n, t, &g2);
        if (fabs(got - want) > 1e-12 * fabs(want) + 1e-12) { printf("f64 %d: %g %g\n", trial, got, want); failures++; }
        for (long i = 0; i < n; i++) {
            /* float16 bits of small integers-over-8 (exact in binary16) */
            int v = rand() % 161 - 80;
            float f = v / 8.0f;
            x[i] = f;
            uint16_t sign = f < 0 ? 0x8000 : 0;
            float a = fabsf(f);
            if (a == 0.0f) h[i] = sign;
            else { int e; float mant = frexpf(a, &e); h[i] = sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((mant * 2.0f - 1.0f) * 1024.0f); }
            if (fm_half_to_float(h[i]) != f) { printf("half %d: %g %g\n", trial, fm_half_to_float(h[i]), f); failures++; break; }
        }
        want = naive(x, n, 1, t);
        got = fm_logprob_f16(h, 1, n, t, &g3);
        if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9) { printf("f16 %d: %g %g\n", trial, got, want); failures++; }
        free(x); free(h); free(d);
    }
    float nanrow[9] = {0, 1, 2, NAN, 4, 5, 6, 7, 8};
    int g;
    if (!isnan(fm_logprob_f32(nanrow, 1, 9, 0, &g))) { printf("NaN row\n"); failures++; }
    printf("%d failures\n", failures);
    return failures != 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-DFM_NO_AVX"], ["-DFM_NO_VEC"]],
                         ids=["default", "sse", "scalar"])
def test_fm_lse_matches_naive_log_softmax(tmp_path, flags):
    out = run_program(tmp_path, LSE_PROGRAM, *flags, sources=["fm_lse.c"])
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("0 failures")


HASH_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fm_hash.h"

/* naive reference: the first index holding the same bytes */
static int64_t first_equal(const char *d, int64_t i, int64_t w) {
    for (int64_t j = 0; j <= i; j++)
        if (memcmp(d + j * w, d + i * w, (size_t)w) == 0) return j;
    return -1;
}

int main(void) {
    srand(777);
    int failures = 0;
    for (int trial = 0; trial < 300; trial++) {
        /* from trial 200: thousands of items in runs of random lengths (blocks switch
         * between the run test and hashing every item) */
        int runs = trial >= 200;
        int64_t n = runs ? rand() % 6000 : rand() % 400, w = 1 + trial % 37;
        int64_t kinds = 1 + rand() % 90, left = 0;
        int v = 0;
        char *d = calloc((size_t)(n * w + 1), 1);
        for (int64_t i = 0; i < n; i++) {  /* few distinct values, some sharing prefixes */
            if (!runs || left-- <= 0) {
                v = rand() % kinds;
                left = runs ? rand() % (trial % 3 == 0 ? 3 : 300) : 0;
            }
            for (int64_t b = 0; b < w; b++) d[i * w + b] = (char)((v >> (b % 7)) + b * (v & 1));
        }
        fm_htab t;
        int32_t *codes = malloc(sizeof(int32_t) * (size_t)(n + 1));
        if (fm_htab_init(&t, 64) < 0) return 2;
        if (fm_encode_fixed(d, n, w, w, codes, NULL, &t) < 0) return 2;
        for (int64_t i = 0; i < n && failures < 5; i++) {
            int64_t f = first_equal(d, i, w);
            if (codes[i] < 0 || codes[i] >= t.k || t.first[codes[i]] != f) {
                printf("trial %d item %ld\n", trial, (long)i);
                failures++;
            }
        }
        /* the same items as variable-length strings of their first len bytes */
        int64_t *off = malloc(sizeof(int64_t) * (size_t)(n + 1));
        off[0] = 0;
        for (int64_t i = 0; i < n; i++) off[i + 1] = off[i] + w;
        fm_htab t2;
        int32_t *c2 = malloc(sizeof(int32_t) * (size_t)(n + 1));
        if (fm_htab_init(&t2, 64) < 0) return 2;
        if (fm_encode_var(d, n * w, off, NULL, n, c2, NULL, &t2) < 0) return 2;
        if (t2.k != t.k) {
            printf("trial %d: %ld != %ld codes\n", trial, (long)t2.k, (long)t.k);
            failures++;
        }
        for (int64_t i = 0; i < n; i++)
            if (c2[i] != codes[i]) {
                printf("trial %d var item %ld\n", trial, (long)i);
                failures++;
                break;
            }
        fm_htab_free(&t); fm_htab_free(&t2);
        free(d); free(codes); free(off); free(c2);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
"""


def test_fm_hash_encodes_like_first_equal_search(tmp_path):
    """First-seen codes of fixed-width and of offset-addressed items (read near the end of
    the buffer too) against a naive search for the first equal item, on shuffled values
    and on values in runs (the fixed-width encoder's run test)."""
    out = run_program(tmp_path, HASH_PROGRAM)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("0 failures")


BINS_W_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fm_bins.h"

int main(void) {
    srand(4242);
    int failures = 0;
    for (int trial = 0; trial < 300; trial++) {
        ptrdiff_t n = 1 + rand() % 1500, start = rand() % 7, nb = 1 + trial % 12;
        int64_t *y = malloc(sizeof(int64_t) * (size_t)(n + start));
        double *p = malloc(sizeof(double) * (size_t)(n + start));
        float *w = malloc(sizeof(float) * (size_t)(n + start));
        double *E = malloc(sizeof(double) * (size_t)(nb + 1));
        double *got = calloc((size_t)(4 * nb * FM_BINS_COLS), sizeof(double));
        double *want = calloc((size_t)(4 * nb * FM_BINS_COLS), sizeof(double));
        int64_t info[5];
        for (ptrdiff_t b = 1; b < nb; b++) E[b] = (double)b / (double)nb;
        E[0] = -1.0 / 0.0;
        E[nb] = 1.0 / 0.0;
        for (ptrdiff_t i = 0; i < n + start; i++) {
            p[i] = (rand() % 4 == 0) ? (double)(rand() % (nb + 1)) / (double)nb
                                     : (double)rand() / RAND_MAX;
            y[i] = rand() % 2 ? 5 : 3;
            w[i] = (float)(rand() % 1000) / 7.0f;
        }
        fm_bins_lane_w(y, FM_Y_I64, p, 0, w, 1, start, start + n, 5, 1, E, nb, got, info);
        for (ptrdiff_t i = start; i < start + n; i++) {
            ptrdiff_t b = nb > 1 ? fm_bins_exact(p[i], E, nb) : 0;
            fm_bins_row(want + ((i & 3) * nb + b) * FM_BINS_COLS, p[i], (double)w[i],
                        y[i] == 5);
        }
        if (info[0] != -1 || memcmp(got, want, sizeof(double) * (size_t)(4 * nb * FM_BINS_COLS))) {
            printf("trial %d (n %td, nb %td): not the same bits\n", trial, n, nb);
            failures++;
        }
        w[start + n / 2] = 0.0f / 0.0f;
        fm_bins_lane_w(y, FM_Y_I64, p, 0, w, 1, start, start + n, 5, 1, E, nb, got, info);
        if (info[0] != start + n / 2 || info[4] != 2) {
            printf("trial %d: bad weight at %td reported at %lld\n", trial, start + n / 2,
                   (long long)info[0]);
            failures++;
        }
        free(y); free(p); free(w); free(E); free(got); free(want);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-DFM_NO_VEC"]], ids=["sse2", "scalar"])
def test_fm_bins_weighted_lane_same_bits_as_sample_by_sample(tmp_path, flags):
    """The weighted block pass (vector and scalar builds) against the sample-by-sample adds
    into bank i % 4: the same bits, and a NaN weight reported where it is."""
    # the header's other static lane is not called here
    out = run_program(tmp_path, BINS_W_PROGRAM, "-Wno-unused-function", *flags)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("0 failures")
