"""The C helpers in csrc/ on their own: compiled with the system C compiler, no Python."""

import os
import shutil
import subprocess
import sysconfig

import pytest

CSRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "csrc")

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
    if not os.path.isdir(CSRC):
        pytest.skip("csrc/ is only present when the tests run from the source tree")
    cc = sysconfig.get_config_var("CC") or "cc"
    cc = cc.split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) on this machine")
    src = tmp_path / "t.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "t"
    subprocess.run([cc, "-O2", "-std=c11", "-Wall", "-Werror", f"-I{CSRC}", str(src), "-o", str(exe)],
                   check=True, capture_output=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().endswith("0 failures")
