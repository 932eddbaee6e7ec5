#!/usr/bin/env python3
"""Census of the operators and types that independent goldens check
(issue 28, item 3): for every op x operand type that docs/format.md allows,
how many of the given programs have it evaluated by
tests/detection/semantics_model.py while their stated values
(expect (buffer ...)) equal the model's.

  op_type_census.py [--min N] [--root DIR] FILE...
  op_type_census.py --self-test     the cross-check below finds an op added to
                                    program.c or format.md, or one dropped

Prints one table per family (operators by type, casts from x to, bitcasts,
loads and stores by space, atomics by op, type and space, builtins by axis,
statements) and exits 1 naming every op x type used by fewer than N
programs (default 2), and every program the model cannot run or disagrees
with. "Used" means evaluated at least once when the model runs the program
(an operator in a branch no invocation takes does not count).

The list of ops is the census's own; it fails (exit 1) when the names of
harness/model/program.c (vc_unop_name, vc_binop_name, vc_atomic_op_name,
vc_builtin_name, vc_type_name, the statement node kinds) or the forms of
docs/format.md's tables differ from it, so that an op added to the format
cannot be missed silently.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import semantics_model as model  # noqa: E402

TYPES = ["u32", "i32", "f32", "u64", "i64"]
INTS = ["u32", "i32", "u64", "i64"]
SPACES = ["buffer", "shared"]
AXES = ["x", "y", "z"]
UNOPS = ["neg", "abs", "not", "lnot"]
BINOPS = ["add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr",
          "eq", "ne", "lt", "le", "gt", "ge", "land", "lor"]
ATOMIC_OPS = ["add", "sub", "and", "or", "xor", "min", "max", "exchange", "cmpxchg", "load",
              "store"]
BUILTINS = ["global_id", "local_id", "group_id", "num_groups", "group_size"]
STATEMENTS = ["let", "var", "set", "store", "atomic", "if", "loop", "return", "block", "barrier",
              "while", "break", "continue"]
# expression forms that are not operators of the lists above
OTHER_EXPRS = ["load", "atomic", "select", "cast", "bitcast"]


def allowed():
    """Every op x type docs/format.md allows, as (family, key) in table order."""
    out = []
    # Expressions: arithmetic on the operands' type, rem not on f32; the
    # bitwise operators and shifts on integers; comparisons on every type;
    # land/lor/lnot on u32; abs on i32, i64, f32; not on integers.
    operand_types = {op: TYPES for op in ("add", "sub", "mul", "div", "min", "max",
                                          "eq", "ne", "lt", "le", "gt", "ge", "neg")}
    operand_types.update({op: INTS for op in ("rem", "and", "or", "xor", "shl", "shr", "not")})
    operand_types.update({"land": ["u32"], "lor": ["u32"], "lnot": ["u32"],
                          "abs": ["i32", "i64", "f32"], "select": TYPES, "literal": TYPES})
    for op in BINOPS + UNOPS + ["select", "literal"]:
        for t in operand_types[op]:
            out.append(("operators", (op, t)))
    # cast: between any two types, its own included; bitcast: types of one size
    for a in TYPES:
        for b in TYPES:
            out.append(("cast", ("cast", a, b)))
    for a in TYPES:
        for b in TYPES:
            if model.WIDTH[a] == model.WIDTH[b] and (a in ("u64", "i64")) == (b in ("u64", "i64")):
                out.append(("bitcast", ("bitcast", a, b)))
    for op in ("load", "store"):
        for s in SPACES:
            for t in TYPES:
                out.append(("memory", (op, t, s)))
    # atomics, atomic load and store included: u32, i32, u64, i64, buffers
    # and shared arrays (docs/format.md, Statements and Expressions)
    for op in ATOMIC_OPS:
        for s in SPACES:
            for t in INTS:
                out.append(("atomics", ("atomic", op, t, s)))
    for b in BUILTINS:
        for a in AXES:
            out.append(("builtins", (b, a)))
    for st in ("let", "var", "set"):
        for t in TYPES:
            out.append(("statements", (st, t)))
    for t in ("u32", "i32"):  # FROM, TO both u32 or both i32
        out.append(("statements", ("loop", t)))
    for st in ("if", "block", "while", "break", "continue", "return"):
        out.append(("statements", (st,)))
    for scope in ("workgroup", "grid"):
        out.append(("statements", ("barrier", scope)))
    return out


def spell(key):
    if key[0] in ("cast", "bitcast"):
        return "%s %s->%s" % key
    return " ".join(key)


# --- the lists of the source and of the format ---------------------------
def c_names(text, function):
    m = re.search(r"\b%s\([^)]*\)\s*\{.*?names\[[^\]]*\]\s*=\s*\{(.*?)\};" % function, text, re.S)
    if not m:
        return None
    return re.findall(r'"([^"]*)"', m.group(1))


def source_problems(path, text):
    problems = []
    node_kinds = c_names(text, "vc_node_kind_name")
    want = {
        "vc_unop_name": UNOPS,
        "vc_binop_name": BINOPS,
        "vc_atomic_op_name": ATOMIC_OPS,
        "vc_builtin_name": BUILTINS,
        "vc_type_name": TYPES + ["void"],
    }
    for fn, ours in want.items():
        theirs = c_names(text, fn)
        if theirs is None:
            problems.append("%s: no names array in %s" % (path, fn))
        elif sorted(theirs) != sorted(ours):
            problems.append("%s: %s names %s, the census %s" % (path, fn, sorted(theirs),
                                                                 sorted(ours)))
    if node_kinds is None:
        problems.append("%s: no names array in vc_node_kind_name" % path)
    else:
        # the statement kinds follow "builtin", the last expression kind
        stmts = node_kinds[node_kinds.index("builtin") + 1:]
        exprs = node_kinds[:node_kinds.index("builtin") + 1]
        if sorted(set(stmts)) != sorted(STATEMENTS):
            problems.append("%s: statement kinds %s, the census %s" % (path, sorted(stmts),
                                                                       sorted(STATEMENTS)))
        ours = sorted(["literal", "name", "unary", "binary", "builtin"] + OTHER_EXPRS)
        if sorted(exprs) != ours:
            problems.append("%s: expression kinds %s, the census %s" % (path, sorted(exprs), ours))
    return problems


def section(text, title):
    m = re.search(r"^## %s\n(.*?)(?=^## )" % re.escape(title), text, re.S | re.M)
    return m.group(1) if m else ""


def format_problems(path, text):
    problems = []
    # the first column of the tables of Statements and Expressions
    def heads(title):
        names = set()
        for line in section(text, title).splitlines():
            if not line.startswith("| ") or line.startswith("| form") or line.startswith("| ---"):
                continue
            first = line.split("|")[1]
            codes = re.findall(r"`([^`]*)`", first)
            for code in codes or first.replace(",", " ").split():
                m = re.match(r"\(?([a-z_0-9]+)", code)
                if m:
                    names.add(m.group(1))
        return names
    stmts = heads("Statements")
    exprs = heads("Expressions")
    ours_stmts = set(STATEMENTS)
    if stmts != ours_stmts:
        problems.append("%s: the Statements table has %s, the census %s"
                        % (path, sorted(stmts), sorted(ours_stmts)))
    # the first row is "literal, name"; the atomic ops are listed below the table
    ours_exprs = set(BINOPS + UNOPS + BUILTINS + OTHER_EXPRS + ["literal", "name"])
    if exprs != ours_exprs:
        problems.append("%s: the Expressions table differs from the census: only in the table %s, "
                        "only in the census %s" % (path, sorted(exprs - ours_exprs),
                                                   sorted(ours_exprs - exprs)))
    m = re.search(r"^Atomic OP: `([^`]*)`;\s*`(\w+)`[^`]*`(\w+)`", text, re.M)
    if not m:
        problems.append("%s: no line 'Atomic OP: `...`'" % path)
    else:
        ops = set(m.group(1).split()) | {m.group(2), m.group(3)}
        if ops != set(ATOMIC_OPS):
            problems.append("%s: Atomic OP lists %s, the census %s" % (path, sorted(ops),
                                                                       sorted(ATOMIC_OPS)))
    m = re.search(r"^TYPE is ([^.]*)\.", text, re.M)
    if not m or set(re.findall(r"`(\w+)`", m.group(1))) != set(TYPES):
        problems.append("%s: 'TYPE is ...' does not list %s" % (path, TYPES))
    return problems


def lists_problems(root):
    source = os.path.join(root, "harness/model/program.c")
    fmt = os.path.join(root, "docs/format.md")
    return source_problems(source, open(source).read()) + format_problems(fmt, open(fmt).read())


def self_test(root):
    """The cross-check of the op lists finds an op added to program.c or to
    docs/format.md, and one missing from format.md; exit 0 when it does."""
    source = os.path.join(root, "harness/model/program.c")
    fmt = os.path.join(root, "docs/format.md")
    src, doc = open(source).read(), open(fmt).read()
    cases = [("the lists as they are", source_problems(source, src) + format_problems(fmt, doc),
              None)]
    added = re.sub(r'("land", "lor")', r'\1, "clz"', src, count=1)
    cases.append(("a binary operator clz added to vc_binop_name",
                  source_problems(source, added), "clz"))
    added = re.sub(r'"exchange", "cmpxchg", "load",', '"exchange", "cmpxchg", "inc", "load",', src,
                   count=1)
    cases.append(("an atomic inc added to vc_atomic_op_name", source_problems(source, added), "inc"))
    added = doc.replace("| `(neg a)` |", "| `(clz a)` | a's type |\n| `(neg a)` |", 1)
    cases.append(("a row (clz a) added to format.md's Expressions", format_problems(fmt, added),
                  "clz"))
    dropped = re.sub(r"^\| `\(while C STMT\.\.\.\)` \|.*\n", "", doc, count=1, flags=re.M)
    cases.append(("the row (while ...) dropped from format.md's Statements",
                  format_problems(fmt, dropped), "while"))
    bad = 0
    for what, problems, word in cases:
        ok = not problems if word is None else any(word in p for p in problems)
        print("%s: %s (%s)" % ("ok" if ok else "FAIL", what,
                                "; ".join(problems) if problems else "no problem found"))
        bad += not ok
    return 1 if bad else 0


# --- the programs ----------------------------------------------------------
def trace(path):
    """The set of keys the model evaluates in the program at path, or a
    problem: it cannot run it, or its stated values differ from the model's."""
    text = open(path).read()
    model.TRACE = set()
    try:
        prog = model.Program(model.parse(text))
        prog.text = text
        outputs = prog.run()
    except (model.ModelError, IndexError, KeyError, ValueError) as exc:
        return None, ["%s: the model cannot run it: %s" % (path, exc)]
    finally:
        keys, model.TRACE = model.TRACE, None
    problems = model.check(prog, outputs, path)
    return (None if problems else keys), problems


def table(rows, cols, cell):
    width = max(len(r) for r in rows) + 2
    out = [" " * width + "".join("%8s" % c for c in cols)]
    for r in rows:
        out.append(r.ljust(width) + "".join("%8s" % cell(r, c) for c in cols))
    return out


def report(items, counts):
    have = {key for _, key in items}

    def cell(key):
        return str(counts.get(key, 0)) if key in have else "-"

    out = ["operators by operand type (programs):"]
    ops = BINOPS + UNOPS + ["select", "literal"]
    out += table(ops, TYPES, lambda r, c: cell((r, c)))
    out += ["", "cast from (rows) to (columns):"]
    out += table(TYPES, TYPES, lambda r, c: cell(("cast", r, c)))
    out += ["", "bitcast from (rows) to (columns):"]
    out += table(TYPES, TYPES, lambda r, c: cell(("bitcast", r, c)))
    out += ["", "loads and stores:"]
    out += table(["%s %s" % (op, s) for op in ("load", "store") for s in SPACES], TYPES,
                 lambda r, c: cell((r.split()[0], c, r.split()[1])))
    out += ["", "atomics:"]
    out += table(["%s %s" % (op, s) for op in ATOMIC_OPS for s in SPACES], INTS,
                 lambda r, c: cell(("atomic", r.split()[0], c, r.split()[1])))
    out += ["", "builtins by axis:"]
    out += table(BUILTINS, AXES, lambda r, c: cell((r, c)))
    out += ["", "statements:"]
    out += table(["let", "var", "set"], TYPES, lambda r, c: cell((r, c)))
    rest = [key for fam, key in items if fam == "statements" and key[0] not in ("let", "var", "set")]
    out.append("  ".join("%s %s" % (spell(k), cell(k)) for k in rest))
    return out


def main(argv):
    minimum = 2
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--min" and argv:
            minimum = int(argv.pop(0))
        elif opt == "--root" and argv:
            root = argv.pop(0)
        elif opt == "--self-test":
            return self_test(root)
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    failures = lists_problems(root)
    items = allowed()
    allowed_keys = {key for _, key in items}
    users = {}
    outside = {}
    for path in argv:
        keys, problems = trace(path)
        failures += problems
        for k in keys or ():
            if k in allowed_keys:
                users.setdefault(k, []).append(path)
            elif k[0] not in ("name",):
                outside.setdefault(k, []).append(path)
    counts = {k: len(v) for k, v in users.items()}
    for line in report(items, counts):
        print(line)
    gaps = [k for _, k in items if counts.get(k, 0) < minimum]
    print()
    print("%d program(s), %d op x type the format allows, %d used by at least %d, %d gap(s)"
          % (len(argv), len(items), len(items) - len(gaps), minimum, len(gaps)))
    for k, paths in sorted(outside.items()):
        print("note: %s is evaluated (%s) but is not in docs/format.md's list"
              % (spell(k), ", ".join(paths)))
    for k in gaps:
        used = users.get(k, [])
        failures.append("gap: %s: %d program(s)%s" % (spell(k), len(used),
                                                      ": " + ", ".join(used) if used else ""))
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
