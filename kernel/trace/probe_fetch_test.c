// SPDX-License-Identifier: GPL-2.0
/*
 * Known values for testing the fetch arguments of probe events.
 *
 * Writing anything to /sys/module/probe_fetch_test/parameters/run calls
 * probe_fetch_test_target() with a struct of known values of every
 * width, strings, arrays, a bitfield container and pointers, so that a
 * kprobe event on it can check each fetch type end to end (see
 * tools/testing/selftests/probes/).  The layout is fixed: the tests use
 * the offsets checked by the BUILD_BUG_ON()s below.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stddef.h>
#include <linux/compiler.h>

struct probe_fetch_test_data {
	u64 u64v;		/*   0 */
	s64 s64v;		/*   8 */
	u32 u32v;		/*  16 */
	s32 s32v;		/*  20 */
	u16 u16v;		/*  24 */
	s16 s16v;		/*  26 */
	u8 u8v;			/*  28 */
	s8 s8v;			/*  29 */
	char ch;		/*  30 */
	u8 pad;			/*  31 */
	u32 bits;		/*  32: bitfield container */
	u32 arr[4];		/*  36 */
	char str[12];		/*  52 */
	const char *strp;	/*  64 */
	const char *strs[3];	/*  72 */
	void *func;		/*  96 */
	const char *bad;	/* 104: faults when read */
	u32 *arrp;		/* 112: &arr[2] */
};

/* Read through @SYM by the tests */
u32 probe_fetch_test_global[2] = { 0xcafe, 0xbeef };

/* Global, so that the compiler keeps its name and signature. */
int probe_fetch_test_target(struct probe_fetch_test_data *d,
			    unsigned long second);

static const char * const pft_strings[] = { "a", "bc", "def" };

noinline int probe_fetch_test_target(struct probe_fetch_test_data *d,
				     unsigned long second)
{
	/* keep the call and its arguments */
	asm volatile("" : : "r"(d), "r"(second) : "memory");
	return 0x1234;
}

/*
 * "probe_fetch_test:" and this name make a place longer than a fetch
 * argument (63 characters): kprobe_events_listing.tc deletes a probe on
 * it by its place.
 */
int probe_fetch_test_target_whose_place_outgrows_an_argument(void);
/* Not static: GCC would clone a static one under another name (.isra). */
noinline int probe_fetch_test_target_whose_place_outgrows_an_argument(void)
{
	asm volatile("");
	return 0;
}

static struct probe_fetch_test_data pft_data = {
	.u64v = 0xfedcba9876543210ULL,
	.s64v = -81985529216486896LL,
	.u32v = 0xfedcba98,
	.s32v = -19088744,
	.u16v = 0xfedc,
	.s16v = -292,
	.u8v = 0xfe,
	.s8v = -2,
	.ch = 'P',
	.bits = 0x12345678,
	.arr = { 1, 2, 3, 4 },
	.str = "hello",
	.strp = "world",
	.strs = { "a", "bc", "def" },
	.bad = (const char *)0x10,
};

static int pft_run(const char *val, const struct kernel_param *kp)
{
	pft_data.func = probe_fetch_test_target;
	pft_data.arrp = &pft_data.arr[2];
	probe_fetch_test_target_whose_place_outgrows_an_argument();
	return probe_fetch_test_target(&pft_data, 0x5678) == 0x1234 ? 0 : -EIO;
}

static const struct kernel_param_ops pft_run_ops = {
	.set = pft_run,
};
module_param_cb(run, &pft_run_ops, NULL, 0200);

static int __init probe_fetch_test_init(void)
{
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, s64v) != 8);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, u32v) != 16);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, u16v) != 24);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, u8v) != 28);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, ch) != 30);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, bits) != 32);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, arr) != 36);
	BUILD_BUG_ON(offsetof(struct probe_fetch_test_data, str) != 52);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     offsetof(struct probe_fetch_test_data, strp) != 64);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     offsetof(struct probe_fetch_test_data, func) != 96);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     offsetof(struct probe_fetch_test_data, arrp) != 112);
	/* the strings the tests expect */
	WARN_ON(strcmp(pft_data.strs[2], pft_strings[2]));
	return 0;
}

static void __exit probe_fetch_test_exit(void)
{
}

module_init(probe_fetch_test_init);
module_exit(probe_fetch_test_exit);
MODULE_DESCRIPTION("Known values for the probe events fetch-argument tests");
MODULE_LICENSE("GPL");
