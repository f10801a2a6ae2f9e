/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debug.kprobes-optimization for the x86 KUnit suites, read and written
 * through its proc handler as a write(2) to the file would be.
 */
#ifndef __X86_KERNEL_KPROBES_KUNIT_SYSCTL_H
#define __X86_KERNEL_KPROBES_KUNIT_SYSCTL_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>

/*
 * Write *@val to the switch, or read it into *@val.  Returns 0 or the
 * handler's error (-EOPNOTSUPP without an optimizer or sysctl).
 * Context: process, may sleep (kprobe_mutex).
 */
static inline int kprobes_test_opt_sysctl(bool write, int *val)
{
#if defined(CONFIG_OPTPROBES) && defined(CONFIG_SYSCTL)
	char buf[16] = "";
	size_t len = sizeof(buf) - 1;
	loff_t pos = 0;
	int ret;

	if (write)
		len = scnprintf(buf, sizeof(buf), "%d\n", *val);
	ret = proc_kprobes_optimization_handler(NULL, write, buf, &len, &pos);
	if (ret || write)
		return ret;
	buf[len] = '\0';
	return kstrtoint(strim(buf), 10, val);
#else
	return -EOPNOTSUPP;
#endif
}

#endif /* __X86_KERNEL_KPROBES_KUNIT_SYSCTL_H */
