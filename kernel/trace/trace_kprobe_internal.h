/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two files of kprobe events share.  Calls go one way:
 * trace_kprobe_cmd.c (the command language: parsing commands, printing
 * definitions back and matching them, the kprobe_events and
 * kprobe_profile files, the in-kernel command API, kprobe_event= at
 * boot, the initcalls, the boot-time selftest) calls trace_kprobe.c (the
 * kprobe_ev object: its life, hits, event class and perf local probes),
 * never the other way round.  Of trace_kprobe_cmd.c, trace_kprobe.c only
 * uses kev_dyn_ops, the data that marks a dyn_event as a kprobe_ev.
 */
#ifndef _TRACE_KPROBE_INTERNAL_H
#define _TRACE_KPROBE_INTERNAL_H

#include <linux/bpf-cgroup.h>
#include <linux/security.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/rculist.h>
#include <linux/error-injection.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

#define KPROBE_EVENT_SYSTEM	"kprobes"
/* Upper bound of r<N>: instances of a kretprobe are preallocated. */
#define KEV_MAXACTIVE_LIMIT	4096

/**
 * struct kprobe_ev - one kprobe or kretprobe that records a trace event
 * @dev: link on the dyn_event list (event_mutex).
 * @mod_node: link on kev_mod_list while @sym names a module (event_mutex).
 * @hits: per-CPU hit counter, shown in kprobe_profile.
 * @sym: "[MOD:]SYM" without offset and suffix; NULL for an address probe.
 * @modlen: length of "MOD" in @sym, or -1 if @sym has no module part.
 * @place: for an address probe, the address the user gave.
 * @is_return: a kretprobe (@krp.handler is set), else a kprobe.
 * @registered: registered with the kprobe core (event_mutex).
 * @krp: the probe; @krp.kp is used alone for an entry probe.
 * @tp: the trace_probe; last, since it ends with the argument array.
 */
struct kprobe_ev {
	struct dyn_event	dev;
	struct list_head	mod_node;
	unsigned long __percpu	*hits;
	char			*sym;
	int			modlen;
	void			*place;
	bool			is_return;
	bool			registered;
	struct kretprobe	krp;
	struct trace_probe	tp;
};

/* What a command asks for, before a kprobe_ev exists. */
struct kev_req {
	const char	*event;		/* NULL: make a name up */
	const char	*group;
	char		*sym;		/* owned; NULL for an address */
	void		*addr;
	long		offs;
	unsigned int	maxactive;
	bool		is_return;
	unsigned int	argflags;	/* TPARG_FL_* for the fetch args */
};

/* trace_kprobe.c: the kprobe_ev object, for trace_kprobe_cmd.c */
struct kprobe_ev *kev_alloc(struct kev_req *req, int nargs);
void kev_free(struct kprobe_ev *kev);
int kev_install(struct kprobe_ev *kev);
int kev_release(struct dyn_event *ev);
bool kev_busy(struct dyn_event *ev);
int kev_check_symbol(const char *sym);
struct kprobe_ev *kev_of_call(struct trace_event_call *call);
struct kprobe_ev *kev_find(const char *event, const char *group);
unsigned long kev_hit_count(struct kprobe_ev *kev);
unsigned long kev_miss_count(struct kprobe_ev *kev);
int kev_event_enable(struct trace_event_call *call,
		     struct trace_event_file *file);
int kev_event_disable(struct trace_event_call *call,
		      struct trace_event_file *file);
int kev_reg(struct trace_event_call *call, enum trace_reg type, void *data);
#ifdef CONFIG_MODULES
int __init kev_module_notifier_init(void);
#else
static inline int kev_module_notifier_init(void)
{
	return 0;
}
#endif

/* trace_kprobe_cmd.c: the dyn_event type of kprobe events */
extern struct dyn_event_operations kev_dyn_ops;

/* The kprobe_ev of @ev, or NULL if @ev is not a kprobe event's. */
static inline struct kprobe_ev *kev_of_dyn(struct dyn_event *ev)
{
	return ev->ops == &kev_dyn_ops ?
		container_of(ev, struct kprobe_ev, dev) : NULL;
}

#endif /* _TRACE_KPROBE_INTERNAL_H */
