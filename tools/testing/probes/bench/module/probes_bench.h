/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the benchmark proper and its generated probe sites.
 */
#ifndef _PROBES_BENCH_H
#define _PROBES_BENCH_H

/* Number of distinct generated functions, one probe site each. */
#define PROBES_BENCH_NGEN	10000

typedef void (*probes_bench_fn_t)(void);

int probes_bench_target(unsigned long a, unsigned long b,
			unsigned long c, unsigned long d);

extern const probes_bench_fn_t probes_bench_gen_fns[PROBES_BENCH_NGEN];

#endif /* _PROBES_BENCH_H */
