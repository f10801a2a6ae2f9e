/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __X86_KERNEL_KPROBES_KUNIT_H
#define __X86_KERNEL_KPROBES_KUNIT_H

#include <linux/kprobes.h>

/* kprobes_kunit_asm.S: the functions under test. */
long kpt_func(long x);
long kpt_func2_caller(long x);
long kpt_loop3(void);
unsigned long kpt_running(void);
unsigned long kpt_running_stepped(void);
unsigned long kpt_flags(void);
long kpt_load_or_efault(long *p);
unsigned long kpt_div_or_efault(unsigned long d);

#endif /* __X86_KERNEL_KPROBES_KUNIT_H */
