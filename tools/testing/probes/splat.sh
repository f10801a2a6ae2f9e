# SPDX-License-Identifier: GPL-2.0
# Sourced by report.sh and lockdown.sh: an extended regular expression
# for console lines that a kernel developer would call a splat.  BUG: and
# WARNING: cover most headers (lockdep's are "WARNING: possible circular
# locking dependency detected" and the like, KASAN's and KFENCE's
# "BUG: KASAN: ..." and "BUG: KFENCE: ...", "BUG: sleeping function called
# from invalid context"); the others are named so that a changed prefix
# still matches.  RCU's stall headers are lower case ("rcu: INFO: rcu_preempt
# detected stalls on CPUs/tasks", "self-detected stall").
SPLAT_RE='(BUG:|WARNING:|Oops|Kernel panic|general protection fault|KASAN:|UBSAN:|KFENCE:|possible recursive locking|possible circular locking|inconsistent lock state|possible irq lock inversion|bad unlock balance|suspicious RCU usage|sleeping function called from invalid context|scheduling while atomic|turning off the locking correctness validator|lockdep is turned off|list_(add|del) corruption|INFO: task .* blocked|stack-protector:|Unable to handle kernel|invalid opcode:|kernel BUG at|RCU stall|detected stalls? on|self-detected stall|watchdog: BUG)'
