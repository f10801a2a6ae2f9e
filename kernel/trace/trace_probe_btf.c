// SPDX-License-Identifier: GPL-2.0
/*
 * Probe event arguments named by BTF: function parameters ("$arg1",
 * "name", "name->member"), $retval with its type, and the rewriting of
 * "$arg*" and "$argN" into parameter names.  Part of the fetch-argument
 * engine (see trace_probe.c): called by trace_probe.c, it calls only
 * trace_probe_event.c.  Without CONFIG_PROBE_EVENTS_BTF_ARGS only stubs
 * that refuse BTF names are built.
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/bpf.h>
#include "trace_btf.h"

#include "trace_probe_internal.h"

/* ------------------------------------------------------------------ */
/* BTF arguments                                                      */

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS

static u32 btf_int_data(const struct btf_type *t)
{
	return *(const u32 *)(t + 1);
}

/* Is @t an unsigned 8-bit integer (a C char)? */
static bool btf_is_uchar(const struct btf_type *t)
{
	u32 data;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_INT)
		return false;
	data = btf_int_data(t);
	return !(BTF_INT_ENCODING(data) & BTF_INT_SIGNED) &&
	       BTF_INT_BITS(data) == 8;
}

static bool btf_is_char_ptr(struct btf *btf, const struct btf_type *t)
{
	u32 tid;

	return btf_is_uchar(btf_type_skip_modifiers(btf, t->type, &tid));
}

static bool btf_is_char_array(struct btf *btf, const struct btf_type *t)
{
	const struct btf_array *arr;
	u32 tid;

	if (BTF_INFO_KIND(t->info) != BTF_KIND_ARRAY)
		return false;
	arr = (const struct btf_array *)(t + 1);
	return btf_is_uchar(btf_type_skip_modifiers(btf, arr->type, &tid));
}

/* Look up the prototype of ctx->funcname once. */
static int query_btf_context(struct traceprobe_parse_context *ctx)
{
	const struct btf_param *param;
	const struct btf_type *proto;
	struct btf *btf;
	s32 nr = 0;

	/* a BTF without a prototype is vmlinux's, for $current */
	if (ctx->btf)
		return ctx->proto ? 0 : -ENOENT;
	proto = ctx->funcname ? btf_find_func_proto(ctx->funcname, &btf) : NULL;
	if (!proto)
		return ctx->funcname ? -ENOENT : -EINVAL;
	ctx->btf = btf;
	ctx->proto = proto;

	param = btf_get_func_param(proto, &nr);
	if (!IS_ERR_OR_NULL(param) && (ctx->flags & TPARG_FL_TPOINT)) {
		/* a tracepoint stub's first parameter is its private data */
		nr--;
		param++;
	}
	if (nr > 0 && !IS_ERR_OR_NULL(param)) {
		ctx->params = param;
		ctx->nr_params = nr;
	} else {
		ctx->params = NULL;
		ctx->nr_params = 0;
	}
	return 0;
}

static void clear_btf_context(struct traceprobe_parse_context *ctx)
{
	if (!ctx->btf)
		return;
	btf_put(ctx->btf);
	ctx->btf = NULL;
	ctx->proto = NULL;
	ctx->params = NULL;
	ctx->nr_params = 0;
}

/* The fetch type name for a BTF type, or NULL when it has none. */
static const char *btf_to_type_name(const struct btf_type *t,
				    struct traceprobe_parse_context *ctx)
{
	static const char * const sname[] = { "s8", "s16", "s32", "s64" };
	static const char * const uname[] = { "u8", "u16", "u32", "u64" };
	u32 kind = BTF_INFO_KIND(t->info);
	u32 data, bits;
	int idx;

	/* an enum is an int of its size; a pointer is shown in hex */
	if (kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64)
		return kind == BTF_KIND_ENUM ? "s32" : "s64";
	if (kind == BTF_KIND_PTR)
		return IS_ENABLED(CONFIG_64BIT) ? "x64" : "x32";
	if (kind != BTF_KIND_INT)
		return NULL;

	data = btf_int_data(t);
	bits = BTF_INT_BITS(data);
	idx = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 :
	      bits == 64 ? 3 : -1;
	if (BTF_INT_ENCODING(data) & BTF_INT_SIGNED)
		return idx < 0 ? NULL : sname[idx];
	if (idx >= 0)
		return uname[idx];
	/* an odd-sized unsigned int is a bitfield in a u64 */
	ctx->last_bitsize = bits;
	ctx->last_bitoffs += BTF_INT_OFFSET(data);
	return "u64";
}

const struct fetch_type *
trace_probe_btf_fetch_type(struct traceprobe_parse_context *ctx)
{
	const char *name = NULL;

	if (ctx->btf && ctx->last_type)
		name = btf_to_type_name(ctx->last_type, ctx);
	return trace_probe_find_fetch_type(name, ctx->flags);
}

/*
 * Cut @name at the first "." or "->"; *@rest is what follows.
 * Return: 1 for "->", 0 for "." or nothing, -EINVAL for a lone '-'.
 */
static int btf_split_member(char *name, char **rest,
			    struct traceprobe_parse_context *ctx)
{
	char *sep = strpbrk(name, ".-");

	if (!sep)
		return 0;
	if (sep[0] == '.') {
		*sep = '\0';
		*rest = sep + 1;
		return 0;
	}
	if (sep[1] != '>')
		return trace_probe_inval(ctx->offset + sep - name, BAD_HYPHEN);
	*sep = '\0';
	*rest = sep + 2;
	return 1;
}

/*
 * Find member @name of the struct/union @t; add its bit offset to *@bits
 * and note a bitfield's size.  Returns the member's type or an ERR_PTR.
 */
static const struct btf_type *btf_member(const struct btf_type *t,
					 const char *name, u32 *bits,
					 struct traceprobe_parse_context *ctx)
{
	const struct btf_type *holder;
	const struct btf_member *m;
	u32 anon = 0, tid;

	m = btf_find_struct_member(ctx->btf, t, name, &anon, &holder);
	if (IS_ERR_OR_NULL(m)) {
		if (m)
			trace_probe_log_err(ctx->offset, BAD_BTF_TID);
		else
			trace_probe_log_err(ctx->offset, NO_BTF_FIELD);
		return m ? ERR_CAST(m) : ERR_PTR(-ENOENT);
	}

	ctx->last_bitsize = 0;
	*bits += anon;
	if (!btf_type_kflag(holder)) {
		*bits += m->offset;
	} else {
		*bits += BTF_MEMBER_BIT_OFFSET(m->offset);
		ctx->last_bitsize = BTF_MEMBER_BITFIELD_SIZE(m->offset);
	}

	t = btf_type_skip_modifiers(ctx->btf, m->type, &tid);
	if (!t)
		return ERR_PTR(trace_probe_inval(ctx->offset, BAD_BTF_TID));
	return t;
}

/*
 * Follow "a.b->c..." from a pointer of BTF type @t, or from a pointer to
 * @pointee when that is given (the pointer has no BTF type of its own).
 * Members joined by '.' add up into one offset; each pointer hop ('->',
 * and the start) costs one DEREF.
 */
static int btf_parse_members(char *name, const struct btf_type *t,
			     const struct btf_type *pointee,
			     struct fetch_prog *prog,
			     struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn;
	char *rest;
	int arrow;
	u32 bits, tid;

	for (; name; ctx->last_type = t, pointee = NULL) {
		if (!pointee) {
			if (BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
				return trace_probe_inval(ctx->offset, NO_PTR_STRCT);
			pointee = btf_type_skip_modifiers(ctx->btf, t->type, &tid);
			if (!pointee)
				return trace_probe_inval(ctx->offset, BAD_BTF_TID);
		}
		t = pointee;

		/* one hop: members up to the next "->" */
		for (bits = 0, arrow = 0; name && !arrow; name = rest) {
			rest = NULL;
			arrow = btf_split_member(name, &rest, ctx);
			if (arrow < 0)
				return arrow;
			t = btf_member(t, name, &bits, ctx);
			if (IS_ERR(t))
				return PTR_ERR(t);
			if (rest)
				ctx->offset += rest - name;
		}

		insn = prog_next_or_log(prog, ctx->offset);
		if (!insn)
			return -EINVAL;
		insn->op = FETCH_OP_DEREF;
		insn->offset = bits / BITS_PER_BYTE;
		ctx->last_bitoffs = bits % BITS_PER_BYTE;
	}
	return 0;
}

/*
 * The BTF to name types in: the probed function's (a module's BTF holds
 * vmlinux's types too), else vmlinux's, for probes without a function
 * (an address, an eprobe).  Return: 0, or -EOPNOTSUPP without BTF.
 */
static int btf_context_or_vmlinux(struct traceprobe_parse_context *ctx)
{
	struct btf *btf;

	if (ctx->btf || query_btf_context(ctx) == 0)
		return 0;
	btf = bpf_get_btf_vmlinux();
	if (IS_ERR_OR_NULL(btf))
		return -EOPNOTSUPP;
	btf_get(btf);
	ctx->btf = btf;
	return 0;
}

/*
 * "$current->member...": the current task, as a struct task_struct
 * pointer, in btf_context_or_vmlinux()'s BTF.
 */
static int btf_parse_current(char *name, struct fetch_prog *prog,
			     struct traceprobe_parse_context *ctx)
{
	const struct btf_type *task;
	char *members = NULL;
	int arrow;
	s32 id;

	arrow = btf_split_member(name, &members, ctx);
	if (arrow < 0)
		return arrow;
	if (!arrow)
		return trace_probe_fail(ctx->offset + members - name, NOSUP_DAT_ARG, -EOPNOTSUPP);

	if (btf_context_or_vmlinux(ctx))
		return trace_probe_fail(ctx->offset, NOSUP_BTFARG, -EOPNOTSUPP);
	id = btf_find_by_name_kind(ctx->btf, "task_struct", BTF_KIND_STRUCT);
	task = id > 0 ? btf_type_by_id(ctx->btf, id) : NULL;
	if (!task)
		return trace_probe_inval(ctx->offset, BAD_BTF_TID);

	prog_cur(prog)->op = FETCH_OP_CURRENT;
	ctx->last_bitoffs = 0;
	ctx->last_bitsize = 0;
	ctx->offset += members - name;
	return btf_parse_members(members, NULL, task, prog, ctx);
}

/*
 * The BTF half of a typecast "(CAST)VAR->MEMBERS" (see parse_typecast()):
 * VAR's program is written; @cast is "STRUCT[,FIELD[.FIELD...]]" and
 * @members what follows "->", at error_log offsets @cast_offs and
 * @members_offs.  With FIELD, VAR points at that member: the first hop
 * reads at the member's offset less FIELD's.
 */
int trace_probe_parse_btf_typecast(char *cast, int cast_offs, char *members,
				   int members_offs, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx)
{
	const struct btf_type *st, *t;
	char *asgn, *name, *rest, *arrow;
	int var = prog->cur, ret;
	u32 bits = 0;
	s32 id;

	asgn = strchr(cast, ',');
	if (asgn)
		*asgn++ = '\0';
	if (btf_context_or_vmlinux(ctx))
		return trace_probe_fail(cast_offs - 1, NOSUP_BTFARG, -EOPNOTSUPP);
	id = btf_find_by_name_kind(ctx->btf, cast, BTF_KIND_STRUCT);
	if (id < 0)
		id = btf_find_by_name_kind(ctx->btf, cast, BTF_KIND_UNION);
	st = id > 0 ? btf_type_by_id(ctx->btf, id) : NULL;
	if (!st)
		return trace_probe_inval(cast_offs, NO_PTR_STRCT);

	if (asgn) {
		int field_offs = cast_offs + (asgn - cast);

		arrow = strstr(asgn, "->");
		if (arrow)
			return trace_probe_inval(cast_offs + (arrow - cast),
						 TYPECAST_BAD_ARROW);
		ctx->offset = field_offs;
		for (t = st, name = asgn; name; name = rest) {
			rest = strchr(name, '.');
			if (rest)
				*rest++ = '\0';
			if (!*name)
				return trace_probe_inval(ctx->offset, NO_BTF_FIELD);
			t = btf_member(t, name, &bits, ctx);
			if (IS_ERR(t))
				return PTR_ERR(t);
			if (rest)
				ctx->offset += rest - name;
		}
		if (ctx->last_bitsize || bits % BITS_PER_BYTE)
			return trace_probe_inval(field_offs, TYPECAST_NOT_ALIGNED);
	}

	ctx->offset = members_offs;
	ret = btf_parse_members(members, NULL, st, prog, ctx);
	if (ret)
		return ret;
	/* the first hop, right after VAR's program */
	prog->insn[var + 1].offset -= bits / BITS_PER_BYTE;
	return 0;
}

/* A function parameter (or $retval) named by BTF, with members. */
int trace_probe_parse_btf_arg(char *name, struct fetch_prog *prog,
			      struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn = prog_cur(prog);
	const struct btf_type *t;
	char *members = NULL;
	int arrow, i, ret;
	u32 tid;

	if (str_has_prefix(name, "$current"))
		return btf_parse_current(name, prog, ctx);

	/*
	 * No function (a probe on an address): no BTF prototype to look the
	 * name up in.  $retval is the plain return register then, as on a
	 * kernel without BTF.
	 */
	if (!ctx->funcname) {
		if ((ctx->flags & TPARG_FL_RETURN) && !strcmp(name, "$retval")) {
			insn->op = FETCH_OP_RETVAL;
			return 0;
		}
		return trace_probe_inval(ctx->offset, NOSUP_BTFARG);
	}
	arrow = btf_split_member(name, &members, ctx);
	if (arrow < 0)
		return arrow;
	if (!arrow && members)
		return trace_probe_fail(ctx->offset + members - name, NOSUP_DAT_ARG, -EOPNOTSUPP);

	if ((ctx->flags & TPARG_FL_RETURN) && !strcmp(name, "$retval")) {
		insn->op = FETCH_OP_RETVAL;
		if (query_btf_context(ctx) == 0) {
			if (!ctx->proto->type)
				return trace_probe_fail(ctx->offset, NO_RETVAL, -ENOENT);
			tid = ctx->proto->type;
			goto found;
		}
		if (members)
			return trace_probe_fail(ctx->offset + members - name,
						NO_BTF_ENTRY, -ENOENT);
		return 0;
	}

	if (!ctx->proto) {
		ret = query_btf_context(ctx);
		if (ret < 0 || !ctx->nr_params)
			return trace_probe_fail(ctx->offset, NO_BTF_ENTRY, -ENOENT);
	}

	for (i = 0; i < ctx->nr_params; i++) {
		const char *pname = btf_name_by_offset(ctx->btf,
						       ctx->params[i].name_off);

		if (!pname || strcmp(pname, name))
			continue;
		if (tparg_is_function_entry(ctx->flags)) {
			insn->op = FETCH_OP_ARG;
			insn->param = i + !!(ctx->flags & TPARG_FL_TPOINT);
		} else if (tparg_is_function_return(ctx->flags)) {
			ret = trace_probe_save_entry_arg(ctx->tp, i);
			if (ret < 0)
				return ret;
			insn->op = FETCH_OP_EDATA;
			insn->offset = ret;
		}
		tid = ctx->params[i].type;
		goto found;
	}
	return trace_probe_fail(ctx->offset, NO_BTFARG, -ENOENT);

found:
	t = btf_type_skip_modifiers(ctx->btf, tid, &tid);
	if (!t)
		return trace_probe_inval(ctx->offset, BAD_BTF_TID);
	ctx->last_type = t;
	ctx->last_bitoffs = 0;
	ctx->last_bitsize = 0;
	if (!members)
		return 0;
	ctx->offset += members - name;
	return btf_parse_members(members, t, NULL, prog, ctx);
}

/*
 * A BTF bitfield member the user gave no type for, stored as @t (the
 * member's declared type, or u64 for an odd-sized int).  The bits are
 * cut out of that many bytes, the argument's slot: no more, or the cut
 * would write past the slot into the next argument or past the event.
 */
int trace_probe_add_btf_bitfield(struct fetch_prog *prog,
				 const struct fetch_type *t,
				 struct traceprobe_parse_context *ctx)
{
	unsigned int cbits = BITS_PER_BYTE * t->size;
	unsigned int bits = ctx->last_bitsize + ctx->last_bitoffs;
	struct fetch_insn *insn;

	if (ctx->last_bitsize % 8 == 0 && !ctx->last_bitoffs)
		return 0;
	/* A packed member across its type's width: no slot holds it. */
	if (bits > cbits)
		return trace_probe_inval(ctx->offset, BAD_BITFIELD);
	insn = prog_next_or_log(prog, ctx->offset);
	if (!insn)
		return -EINVAL;
	insn->op = FETCH_OP_MOD_BF;
	insn->basesize = t->size;
	insn->lshift = cbits - bits;
	insn->rshift = cbits - ctx->last_bitsize;
	return 0;
}

/*
 * ":string" on a BTF value: a char array is read in place, a char
 * pointer needs one more dereference, anything else is refused.
 */
int trace_probe_prepare_btf_string(const char *type, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn;

	if (!ctx->btf || !ctx->last_type ||
	    btf_is_char_array(ctx->btf, ctx->last_type))
		return 0;
	if (!btf_is_char_ptr(ctx->btf, ctx->last_type))
		return trace_probe_inval(ctx->offset, BAD_TYPE4STR);
	insn = prog_next_or_log(prog, ctx->offset);
	if (!insn)
		return -E2BIG;
	insn->op = type[0] == 'u' ? FETCH_OP_UDEREF : FETCH_OP_DEREF;
	insn->offset = 0;
	return 0;
}

#else /* !CONFIG_PROBE_EVENTS_BTF_ARGS */

static int query_btf_context(struct traceprobe_parse_context *ctx)
{
	return -EOPNOTSUPP;
}

static void clear_btf_context(struct traceprobe_parse_context *ctx)
{
	ctx->btf = NULL;
}

int trace_probe_parse_btf_arg(char *name, struct fetch_prog *prog,
			      struct traceprobe_parse_context *ctx)
{
	return trace_probe_fail(ctx->offset, NOSUP_BTFARG, -EOPNOTSUPP);
}

int trace_probe_parse_btf_typecast(char *cast, int cast_offs, char *members,
				   int members_offs, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx)
{
	return trace_probe_fail(cast_offs - 1, NOSUP_BTFARG, -EOPNOTSUPP);
}

int trace_probe_add_btf_bitfield(struct fetch_prog *prog,
				 const struct fetch_type *t,
				 struct traceprobe_parse_context *ctx)
{
	return trace_probe_fail(ctx->offset, NOSUP_BTFARG, -EOPNOTSUPP);
}

const struct fetch_type *
trace_probe_btf_fetch_type(struct traceprobe_parse_context *ctx)
{
	return trace_probe_find_fetch_type(NULL, ctx->flags);
}

int trace_probe_prepare_btf_string(const char *type, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx)
{
	return 0;
}

#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */

/* ------------------------------------------------------------------ */
/* Argument list rewriting: $arg* / $argN with BTF, %pd / %pD         */

/*
 * Find "$arg*" (at most one) and "$argN" among the arguments.
 * Return: 1 if any, 0 if none, or a negative error.
 */
static int scan_var_args(int argc, const char *argv[], int *star,
			 struct traceprobe_parse_context *ctx)
{
	int i, found = 0;

	for (i = 0; i < argc; i++) {
		if (!str_has_prefix(argv[i], "$arg"))
			continue;
		trace_probe_log_set_index(i + 2);
		if (!tparg_is_function_entry(ctx->flags) &&
		    !tparg_is_function_return(ctx->flags))
			return trace_probe_inval(0, NOFENTRY_ARGS);
		found = 1;
		if (isdigit(argv[i][4]))
			continue;
		if (argv[i][4] != '*')
			return trace_probe_inval(0, BAD_VAR);
		if (*star >= 0 && *star < argc)
			return trace_probe_inval(0, DOUBLE_ARGS);
		*star = i;
	}
	return found;
}

/*
 * Append "NAME@suffix" for BTF parameter @idx at *@used in @buf and
 * return where it starts (or an ERR_PTR).  @idx comes from the user's
 * "$argN" and may be anything: unsigned, so that no N indexes below
 * the parameters.
 */
static const char *put_param_name(unsigned long idx, const char *suffix,
				  char *buf, int size, int *used,
				  struct traceprobe_parse_context *ctx)
{
	bool exists = ctx->nr_params > 0 && idx < ctx->nr_params;
	const char *name = NULL;
	char *at = buf + *used;
	int err, len;

	if (exists)
		name = btf_name_by_offset(ctx->btf, ctx->params[idx].name_off);
	if (!name) {
		err = exists ? TP_ERR_NO_BTF_ENTRY : TP_ERR_NO_BTFARG;
		return ERR_PTR(__trace_probe_fail(0, err, -ENOENT));
	}
	len = snprintf(at, size - *used, "%s%s", name, suffix);
	if (len >= size - *used)
		return ERR_PTR(trace_probe_fail(0, ARGS_2LONG, -E2BIG));
	*used += len + 1;
	return at;
}

/**
 * traceprobe_expand_meta_args - replace $arg* and $argN by BTF names
 * @argc: number of fetch arguments
 * @argv: the fetch arguments (command word 2 onwards)
 * @new_argc: out: number of arguments after expansion
 * @buf: room for the generated names
 * @bufsize: size of @buf
 * @ctx: parse context (flags, funcname)
 *
 * The arguments are always copied, so that later rewriting
 * (traceprobe_expand_dentry_args()) leaves the words error_log shows as
 * the user wrote them, and error_log is told which word each argument
 * came from.
 *
 * Context: dyn_event_ops_mutex held.
 * Return: a new argument vector to kfree() after trace_probe_log_clear(),
 * NULL if there is no argument, or an ERR_PTR.
 */
const char **traceprobe_expand_meta_args(int argc, const char *argv[],
					 int *new_argc, char *buf, int bufsize,
					 struct traceprobe_parse_context *ctx)
{
	struct probe_arg_origin *origin;
	const char **out, *name;
	int i, j, k, used = 0, star = -1, ret;
	bool btf = false;
	unsigned long n;
	char *suffix;

	*new_argc = argc;
	ret = scan_var_args(argc, argv, &star, ctx);
	if (ret < 0)
		return ERR_PTR(ret);
	if (ret) {
		ret = query_btf_context(ctx);
		btf = ret >= 0 && ctx->nr_params;
		/* $arg* needs BTF; $argN without it is the register argument */
		if (!btf && star >= 0)
			return ERR_PTR(trace_probe_fail(0, NOSUP_BTFARG,
							-EOPNOTSUPP));
		if (star >= 0)
			*new_argc = argc - 1 + ctx->nr_params;
	}
	if (!*new_argc)
		return NULL;

	out = kcalloc(*new_argc, sizeof(*out) + sizeof(*origin), GFP_KERNEL);
	if (!out)
		return ERR_PTR(-ENOMEM);
	origin = (struct probe_arg_origin *)(out + *new_argc);

	for (i = 0, j = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		if (i == star) {
			for (k = 0; k < ctx->nr_params; k++) {
				name = put_param_name(k, "", buf, bufsize,
						      &used, ctx);
				if (IS_ERR(name))
					goto fail_name;
				/* errors in one of them point at "$arg*" */
				origin[j].word = i + 2;
				origin[j].whole = true;
				out[j++] = name;
			}
			continue;
		}
		origin[j].word = i + 2;
		if (!btf || !str_has_prefix(argv[i], "$arg")) {
			out[j++] = argv[i];
			continue;
		}
		n = simple_strtoul(argv[i] + 4, &suffix, 10);
		if (*suffix != ':' && *suffix) {
			trace_probe_log_err(0, BAD_VAR);
			ret = -ENOENT;
			goto fail;
		}
		if (!n) {
			trace_probe_log_err(0, BAD_ARG_NUM);
			ret = -EINVAL;
			goto fail;
		}
		name = put_param_name(n - 1, suffix, buf, bufsize, &used, ctx);
		if (IS_ERR(name))
			goto fail_name;
		/* "$argN" became the name; what follows it moved with it */
		origin[j].shift = (suffix - argv[i]) -
				  (int)(strlen(name) - strlen(suffix));
		out[j++] = name;
	}
	trace_probe_log_set_origins(origin, j);
	return out;

fail_name:
	ret = PTR_ERR(name);
fail:
	kfree(out);
	return ERR_PTR(ret);
}

/*
 * Write the rewritten @arg ("EXPR:%pd" or "EXPR:%pD", with or without
 * "NAME=") into @out (@size bytes, may be 0).  Return: the length of
 * the rewritten text, as snprintf() does.
 */
static int dentry_arg_print(char *out, size_t size, const char *arg,
			    int *expr_moved)
{
	const size_t name_offs = offsetof(struct dentry, d_name.name);
	const size_t dentry_offs = offsetof(struct file, f_path.dentry);
	int arglen = strlen(arg), namelen = 0, exprlen;
	const char *eq, *expr;

	eq = strchr(arg, '=');
	/* a '=' inside the type part does not name the argument */
	if (eq && eq - arg >= arglen - 4)
		eq = NULL;
	expr = eq ? eq + 1 : arg;
	if (eq)
		namelen = eq - arg + 1;
	exprlen = arg + arglen - 4 - expr;

	if (arg[arglen - 1] == 'D') {
		*expr_moved = snprintf(NULL, 0, "+0x0(+0x%zx(+0x%zx(",
				       name_offs, dentry_offs);
		return snprintf(out, size, "%.*s+0x0(+0x%zx(+0x%zx(%.*s))):string",
				namelen, arg, name_offs, dentry_offs,
				exprlen, expr);
	}
	*expr_moved = snprintf(NULL, 0, "+0x0(+0x%zx(", name_offs);
	return snprintf(out, size, "%.*s+0x0(+0x%zx(%.*s)):string",
			namelen, arg, name_offs, exprlen, expr);
}

/**
 * traceprobe_expand_dentry_args - rewrite "EXPR:%pd" and "EXPR:%pD"
 * @argc: number of fetch arguments
 * @argv: the fetch arguments, as traceprobe_expand_meta_args() copied
 *	them; rewritten ones point into *@buf
 * @buf: out: the rewritten text (NULL on entry), to kfree() after use
 *
 * "%pd" prints the name of a struct dentry *, "%pD" that of the dentry
 * of a struct file *; both become dereferences with a string type.  The
 * buffer is sized for every rewritten argument: however many there are,
 * each is then parsed (and refused with an error_log entry) as if the
 * user had written it out, the error pointing into what the user wrote.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int traceprobe_expand_dentry_args(int argc, const char *argv[], char **buf)
{
	size_t size = 0, used = 0;
	int i, len, moved;
	char *out;

	if (*buf)
		return -EINVAL;

	for (i = 0; i < argc; i++) {
		if (glob_match("*:%p[dD]", argv[i]))
			size += dentry_arg_print(NULL, 0, argv[i], &moved) + 1;
	}
	if (!size)
		return 0;
	out = kmalloc(size, GFP_KERNEL);
	if (!out)
		return -ENOMEM;

	for (i = 0; i < argc; i++) {
		if (!glob_match("*:%p[dD]", argv[i]))
			continue;
		len = dentry_arg_print(out + used, size - used, argv[i],
				       &moved);
		argv[i] = out + used;
		used += len + 1;
		trace_probe_log_shift_arg(i, -moved);
	}
	*buf = out;
	return 0;
}

/**
 * traceprobe_finish_parse - release what parsing a probe's args held
 * @ctx: the parse context
 *
 * Must follow traceprobe_parse_probe_arg() and
 * traceprobe_expand_meta_args() calls (it drops the BTF reference).
 */
void traceprobe_finish_parse(struct traceprobe_parse_context *ctx)
{
	clear_btf_context(ctx);
}

