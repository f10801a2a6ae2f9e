/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory and string readers of the fetch-argument engine for probes that
 * run in kernel context (kprobe, fprobe, eprobe events, synthetic events).
 *
 * Include trace_probe.h first.  Every helper is safe in any context, NMI
 * included: faults are caught by the *_nofault accessors.
 */
#ifndef __TRACE_PROBE_KERNEL_H_
#define __TRACE_PROBE_KERNEL_H_

/* True if @addr must be read as a user address on this architecture. */
static nokprobe_inline bool fetch_addr_is_user(unsigned long addr)
{
#ifdef CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE
	return addr < TASK_SIZE;
#else
	return false;
#endif
}

/* Length of the user string at @addr, NUL included, or 0 on fault. */
static nokprobe_inline int
fetch_store_strlen_user(unsigned long addr)
{
	return strnlen_user_nofault((const void __user *)addr,
				    MAX_STRING_SIZE);
}

/*
 * Length of the kernel string at @addr, NUL included (at most
 * MAX_STRING_SIZE), or a negative error if it cannot be read.
 */
static nokprobe_inline int
fetch_store_strlen(unsigned long addr)
{
	const u8 *p = (const u8 *)addr;
	int len;
	u8 c;

	if (fetch_addr_is_user(addr))
		return fetch_store_strlen_user(addr);

	for (len = 1; len <= MAX_STRING_SIZE; len++, p++) {
		if (copy_from_kernel_nofault(&c, p, 1))
			return -EFAULT;
		if (!c || len == MAX_STRING_SIZE)
			break;
	}
	return len;
}

/*
 * Common tail of the string stores: make the data location *@dest
 * describe the @copied bytes now at its data (empty on a fault).
 */
static nokprobe_inline long
fetch_string_stored(long copied, void *dest)
{
	*(u32 *)dest = make_data_loc(copied > 0 ? copied : 0,
				     get_loc_offs(*(u32 *)dest));
	return copied;
}

/*
 * Copy the user string at @addr to the data location *@dest (its length
 * is the room left, its offset is relative to @base).
 */
static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	int room = get_loc_len(*(u32 *)dest);
	long copied;

	if (unlikely(!room))
		return -ENOMEM;
	copied = strncpy_from_user_nofault(get_loc_data(dest, base),
					   (const void __user *)addr, room);
	return fetch_string_stored(copied, dest);
}

/* Same for a kernel string; the string may change while it is copied. */
static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base)
{
	int room = get_loc_len(*(u32 *)dest);
	long copied;

	if (fetch_addr_is_user(addr))
		return fetch_store_string_user(addr, dest, base);
	if (unlikely(!room))
		return -ENOMEM;
	copied = strncpy_from_kernel_nofault(get_loc_data(dest, base),
					     (const void *)addr, room);
	return fetch_string_stored(copied, dest);
}

/* Read @size bytes of user memory; 0 or -EFAULT. */
static nokprobe_inline int
probe_mem_read_user(void *dest, void *src, size_t size)
{
	return copy_from_user_nofault(dest, (const void __user *)src, size);
}

/* Read @size bytes of kernel memory; 0 or -EFAULT. */
static nokprobe_inline int
probe_mem_read(void *dest, void *src, size_t size)
{
	if (fetch_addr_is_user((unsigned long)src))
		return probe_mem_read_user(dest, src, size);
	return copy_from_kernel_nofault(dest, src, size);
}

#endif /* __TRACE_PROBE_KERNEL_H_ */
