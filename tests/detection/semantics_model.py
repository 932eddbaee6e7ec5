#!/usr/bin/env python3
"""An independent model of docs/semantics.md for the table-driven programs of
corpus/semantics (issue 14, item 7): expected values that do not come from
the oracle. It shares no code with it: S-expressions parsed here, f32
rounded exactly from rationals (fractions.Fraction), integers as Python
ints reduced to their bits.

  semantics_model.py FILE...           print each program's outputs as
                                       (expect (buffer B (values ...))) forms
  semantics_model.py --check FILE...   exit 1 unless every (expect (buffer ...))
                                       of each program equals the model's values,
                                       and every output buffer has one
  semantics_model.py --write FILE...   insert the forms (before the digest) into
                                       programs that have none

It covers what the semantics programs use, and the few other programs that
state modelled values: one pass (no fixpoint), barriers (every invocation
runs to its next barrier, then all go on), no races, buffers and shared arrays of u32/i32/f32/
u64/i64, let/var/set/store/if/loop/while/break/continue/return/block,
atomics (every op, atomic load and store, on buffers and shared arrays),
every operator and cast of docs/format.md (f32 div correctly rounded, the
quotient the oracle computes). Not modelled: fixpoints, and a return in a
program with grid barriers. What a run evaluates is recorded in TRACE for
tests/detection/op_type_census.py.
"""
import math
import re
import struct
import sys
from fractions import Fraction

WIDTH = {"u32": 32, "i32": 32, "f32": 32, "u64": 64, "i64": 64}
SIGNED = {"i32", "i64"}
F32_MAX_EXP = 127
QNAN = 0x7FC00000

# What the model evaluated, for tests/detection/op_type_census.py: a set of
# tuples such as ("add", "u64"), ("cast", "i32", "f32"),
# ("atomic", "max", "i64", "shared"), ("while",); None records nothing.
TRACE = None


def note(*key):
    if TRACE is not None:
        TRACE.add(key)


class ModelError(Exception):
    pass


# --- S-expressions -------------------------------------------------------
def parse(text):
    tokens = [t for t in re.findall(r'"(?:[^"\\]|\\.)*"|;[^\n]*|[()]|[^\s()";]+', text)
              if not t.startswith(";")]
    pos = 0

    def one():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t == "(":
            out = []
            while tokens[pos] != ")":
                out.append(one())
            pos += 1
            return out
        return t

    return one()


# --- f32 -----------------------------------------------------------------
def f32_bits_to_float(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def is_nan_bits(b):
    return (b & 0x7F800000) == 0x7F800000 and (b & 0x007FFFFF) != 0


def round_f32(q, neg_zero=False):
    """The f32 bits nearest to the rational q (ties to even), with
    denormals, overflow to infinity; a zero result takes neg_zero's sign."""
    if q == 0:
        return 0x80000000 if neg_zero else 0
    sign = 0x80000000 if q < 0 else 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)
    n = a / quantum
    m = n.numerator // n.denominator
    rest = n - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2 == 1):
        m += 1
    r = m * quantum
    if r >= Fraction(2) ** 128:
        return sign | 0x7F800000
    if m == 0:
        return sign
    return sign | struct.unpack("<I", struct.pack("<f", float(r)))[0]


def f32_arith(op, a, b):
    """add, sub or mul of two f32 bit patterns, correctly rounded."""
    fa, fb = f32_bits_to_float(a), f32_bits_to_float(b)
    if math.isnan(fa) or math.isnan(fb) or math.isinf(fa) or math.isinf(fb):
        r = {"add": lambda: fa + fb, "sub": lambda: fa - fb, "mul": lambda: fa * fb}[op]()
        if math.isnan(r):
            return QNAN
        return struct.unpack("<I", struct.pack("<f", r))[0]
    qa, qb = Fraction(fa), Fraction(fb)
    sa, sb = a >> 31, b >> 31
    if op == "sub":
        qb, sb = -qb, sb ^ 1
    if op == "mul":
        return round_f32(qa * qb, neg_zero=bool(sa ^ sb))
    return round_f32(qa + qb, neg_zero=bool(sa and sb))  # x + y = 0 is +0 but (-0) + (-0)


def f32_div(a, b):
    """div of two f32 bit patterns, correctly rounded (IEEE: x/0 is an
    infinity with the sign of the operands, 0/0 and inf/inf a NaN)."""
    fa, fb = f32_bits_to_float(a), f32_bits_to_float(b)
    sign = bool((a ^ b) >> 31)
    if math.isnan(fa) or math.isnan(fb) or (math.isinf(fa) and math.isinf(fb)) \
            or (fa == 0 and fb == 0):
        return QNAN
    if math.isinf(fa) or fb == 0:
        return (0x80000000 if sign else 0) | 0x7F800000
    if math.isinf(fb):
        return 0x80000000 if sign else 0
    return round_f32(Fraction(fa) / Fraction(fb), neg_zero=sign)


def f32_literal(text):
    t = text[:-1] if text.endswith("f") else text
    return round_f32(Fraction(t), neg_zero=t.startswith("-"))


# --- values: (type, bits) ------------------------------------------------
def mask(ty):
    return (1 << WIDTH[ty]) - 1


def to_signed(ty, bits):
    w = WIDTH[ty]
    return bits - (1 << w) if bits >> (w - 1) else bits


def as_int(ty, bits):
    """The integer value of integer bits in their type."""
    return to_signed(ty, bits) if ty in SIGNED else bits


def literal(tok):
    t = tok.lower()
    if re.fullmatch(r"0x[0-9a-f]{8}f", t):
        return ("f32", int(t[2:10], 16))
    for suffix, ty in (("u64", "u64"), ("i64", "i64")):
        if t.endswith(suffix):
            return (ty, int(t[: -len(suffix)], 0) & mask(ty))
    if t.startswith("0x") or t.startswith("-0x"):
        if t.endswith("u"):
            return ("u32", int(t[:-1], 16) & 0xFFFFFFFF)
        if t.endswith("i"):
            return ("i32", int(t[:-1], 16) & 0xFFFFFFFF)
        return ("u32", int(t, 16) & 0xFFFFFFFF)
    if "." in t or "e" in t or t.endswith("f"):
        return ("f32", f32_literal(t))
    if t.endswith("u"):
        return ("u32", int(t[:-1]) & 0xFFFFFFFF)
    if t.endswith("i"):
        return ("i32", int(t[:-1]) & 0xFFFFFFFF)
    v = int(t)
    return ("i32" if t.startswith("-") else "u32", v & 0xFFFFFFFF)


def literal_of(ty, tok):
    lt, bits = literal(tok)
    if lt == ty or (WIDTH[lt] == WIDTH[ty] and ty != "f32" and lt != "f32"):
        return bits
    if ty == "f32":
        raise ModelError("literal %s is not an f32" % tok)
    return as_int(lt, bits) & mask(ty)


def splitmix(seed):
    state = seed & 0xFFFFFFFFFFFFFFFF
    while True:
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        yield z ^ (z >> 31)


def init_values(ty, count, init):
    if init is None or init == "zero":
        return [0] * count
    if init == "iota":
        if ty == "f32":
            return [round_f32(Fraction(i)) for i in range(count)]
        return [i & mask(ty) for i in range(count)]
    kind = init[0]
    if kind == "fill":
        return [literal_of(ty, init[1])] * count
    if kind == "values":
        vals = [literal_of(ty, t) for t in init[1:]]
        return vals + [0] * (count - len(vals))
    if kind == "random":
        g = splitmix(int(init[1], 0))
        return [(next(g) if WIDTH[ty] == 64 else next(g) >> 32) for _ in range(count)]
    if kind == "random-f32":
        g = splitmix(int(init[1], 0))
        lo = f32_bits_to_float(literal_of("f32", init[2]))
        hi = f32_bits_to_float(literal_of("f32", init[3]))
        out = []
        for _ in range(count):
            u = (next(g) >> 40) / float(1 << 24)
            out.append(round_f32(Fraction(lo + (hi - lo) * u)))  # binary64, then binary32
        return out
    if kind == "hex":
        raw = bytes.fromhex(init[1].strip('"'))
        size = WIDTH[ty] // 8
        raw = raw + bytes(size * count - len(raw))
        return [int.from_bytes(raw[i * size:(i + 1) * size], "little") for i in range(count)]
    raise ModelError("init %r" % (init,))


# --- operators -----------------------------------------------------------
def cast(to, ty, bits):
    if to == ty:
        return bits
    if ty == "f32":
        f = f32_bits_to_float(bits)
        if math.isnan(f):
            return 0
        lo, hi = (-(1 << (WIDTH[to] - 1)), (1 << (WIDTH[to] - 1)) - 1) if to in SIGNED else (0, mask(to))
        if math.isinf(f):
            v = hi if f > 0 else lo
        else:
            v = min(max(math.trunc(Fraction(f)), lo), hi)
        return v & mask(to)
    v = as_int(ty, bits)
    if to == "f32":
        return round_f32(Fraction(v))
    return v & mask(to)


def binary(op, ty, a, b):
    if ty == "f32":
        fa, fb = f32_bits_to_float(a), f32_bits_to_float(b)
        if op in ("add", "sub", "mul"):
            return ty, f32_arith(op, a, b)
        if op == "div":
            return ty, f32_div(a, b)
        if op == "min":
            return ty, b if (fb < fa or is_nan_bits(a)) else a
        if op == "max":
            return ty, b if (fb > fa or is_nan_bits(a)) else a
        cmp = {"eq": fa == fb, "ne": fa != fb, "lt": fa < fb, "le": fa <= fb, "gt": fa > fb, "ge": fa >= fb}
        if op in cmp:
            return "u32", int(cmp[op])
        raise ModelError("f32 %s" % op)
    m, w = mask(ty), WIDTH[ty]
    x, y = as_int(ty, a), as_int(ty, b)
    if op == "add":
        return ty, (a + b) & m
    if op == "sub":
        return ty, (a - b) & m
    if op == "mul":
        return ty, (a * b) & m
    if op in ("div", "rem"):
        if y == 0:
            return ty, 0
        q = abs(x) // abs(y)
        if (x < 0) != (y < 0):
            q = -q
        return ty, (q if op == "div" else x - q * y) & m
    if op == "min":
        return ty, a if x <= y else b
    if op == "max":
        return ty, a if x >= y else b
    if op == "and":
        return ty, a & b
    if op == "or":
        return ty, a | b
    if op == "xor":
        return ty, a ^ b
    if op == "shl":
        return ty, (a << (b & (w - 1))) & m
    if op == "shr":
        return ty, ((x >> (b & (w - 1))) & m)
    cmp = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}
    if op in cmp:
        return "u32", int(cmp[op])
    if op == "land":
        return "u32", int(bool(a) and bool(b))
    if op == "lor":
        return "u32", int(bool(a) or bool(b))
    raise ModelError("operator %s" % op)


class Break(Exception):
    pass


class Continue(Exception):
    pass


class Return(Exception):
    pass


class Memory:
    def __init__(self, ty, count, values, space="buffer"):
        self.ty, self.count, self.v, self.space = ty, count, values, space


class Program:
    def __init__(self, form):
        if form[0] != "program":
            raise ModelError("not a program")
        self.name = form[1]
        self.wg, self.grid = [1, 1, 1], [1, 1, 1]
        self.buffers, self.order, self.shared, self.expects = {}, [], {}, []
        self.entry = None
        for f in form[2:]:
            head = f[0]
            if head in ("workgroup", "grid"):
                dims = [int(x, 0) for x in f[1:]] + [1] * (4 - len(f))
                setattr(self, "wg" if head == "workgroup" else "grid", dims[:3])
            elif head == "buffer":
                name, ty, count, access = f[1], f[2], int(f[3], 0), f[4]
                init = f[5][1] if len(f) > 5 else None
                self.buffers[name] = (ty, count, access, init)
                self.order.append(name)
            elif head == "shared":
                self.shared[f[1]] = (f[2], int(f[3], 0))
            elif head == "entry":
                self.entry = f[1:]
            elif head == "fixpoint":
                raise ModelError("fixpoint programs are not modelled")
            elif head == "expect":
                self.expects.append(f[1])

    def run(self):
        mem = {n: Memory(t, c, init_values(t, c, i)) for n, (t, c, a, i) in self.buffers.items()}
        nwg = self.grid[0] * self.grid[1] * self.grid[2]
        nlocal = self.wg[0] * self.wg[1] * self.wg[2]
        invs = []
        for g in range(nwg):
            gid3 = (g % self.grid[0], g // self.grid[0] % self.grid[1], g // (self.grid[0] * self.grid[1]))
            shared = {n: Memory(t, c, [0] * c, "shared") for n, (t, c) in self.shared.items()}
            both = dict(mem, **shared)
            for li in range(nlocal):
                lid3 = (li % self.wg[0], li // self.wg[0] % self.wg[1], li // (self.wg[0] * self.wg[1]))
                invs.append(Invocation(self, both, gid3, lid3).body())
        # Every invocation runs to its next barrier (workgroup or grid), in
        # order; then the next step. Barriers are not divergent (the
        # validator refuses it), so one lockstep serves both kinds.
        while invs:
            left = []
            for inv in invs:
                try:
                    next(inv)
                    left.append(inv)
                except StopIteration:
                    pass
            if left and len(left) != len(invs):
                raise ModelError("divergent barrier")
            invs = left
        return {n: mem[n] for n in self.order if self.buffers[n][2] != "read"}


class Invocation:
    def __init__(self, prog, mem, gid3, lid3):
        self.p, self.mem, self.gid3, self.lid3 = prog, mem, gid3, lid3
        self.scopes = [{}]

    def lookup(self, name):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        raise ModelError("unknown name %s" % name)

    def assign(self, name, val):
        for s in reversed(self.scopes):
            if name in s:
                s[name] = val
                return
        raise ModelError("set of unknown %s" % name)

    def builtin(self, kind, axis):
        a = "xyz".index(axis)
        wg, grid = self.p.wg, self.p.grid
        return {
            "global_id": self.gid3[a] * wg[a] + self.lid3[a],
            "local_id": self.lid3[a],
            "group_id": self.gid3[a],
            "num_groups": grid[a],
            "group_size": wg[a],
        }[kind]

    def atomic(self, e):
        op, buf = e[1], self.mem[e[2]]
        idx = self.expr(e[3])[1]
        args = [self.expr(x) for x in e[4:]]
        note("atomic", op, buf.ty, buf.space)
        if idx >= buf.count:
            return None if op == "store" else (buf.ty, 0)
        ty = buf.ty
        old = buf.v[idx]
        if op == "load":
            return (ty, old)
        if op == "exchange":
            new = args[0][1]
        elif op == "cmpxchg":
            new = args[1][1] if old == args[0][1] else old
        elif op in ("add", "sub", "and", "or", "xor", "min", "max"):
            new = binary(op, ty, old, args[0][1])[1]
        elif op == "store":
            buf.v[idx] = args[0][1]
            return None
        else:
            raise ModelError("atomic %s" % op)
        buf.v[idx] = new
        return (ty, old)

    def expr(self, e):
        if isinstance(e, str):
            if re.match(r"^-?[0-9]", e):
                note("literal", literal(e)[0])
                return literal(e)
            return self.lookup(e)
        op = e[0]
        if op == "load":
            buf = self.mem[e[1]]
            idx = self.expr(e[2])[1]
            note("load", buf.ty, buf.space)
            return (buf.ty, buf.v[idx] if idx < buf.count else 0)
        if op == "atomic":
            return self.atomic(e)
        if op in ("global_id", "local_id", "group_id", "num_groups", "group_size"):
            note(op, e[1])
            return ("u32", self.builtin(op, e[1]))
        if op == "select":
            c, a, b = self.expr(e[1]), self.expr(e[2]), self.expr(e[3])
            note("select", a[0])
            return a if c[1] else b
        if op == "cast":
            ty, b = self.expr(e[2])
            note("cast", ty, e[1])
            return (e[1], cast(e[1], ty, b))
        if op == "bitcast":
            ty, b = self.expr(e[2])
            note("bitcast", ty, e[1])
            return (e[1], b)
        if op in ("neg", "abs", "not", "lnot"):
            ty, b = self.expr(e[1])
            note(op, ty)
            if op == "neg":
                return (ty, b ^ 0x80000000) if ty == "f32" else (ty, (-b) & mask(ty))
            if op == "abs":
                return (ty, b & 0x7FFFFFFF) if ty == "f32" else (ty, abs(as_int(ty, b)) & mask(ty))
            if op == "not":
                return (ty, ~b & mask(ty))
            return ("u32", int(not b))
        a = self.expr(e[1])
        b = self.expr(e[2])
        note(op, a[0])
        return binary(op, a[0], a[1], b[1])

    def body(self):
        try:
            yield from self.block(self.p.entry)
        except Return:
            if "(barrier grid)" in self.p.text:  # a return ends a segment only
                raise ModelError("return in a program with grid barriers is not modelled")

    def block(self, stmts):
        self.scopes.append({})
        try:
            for s in stmts:
                yield from self.stmt(s)
        finally:
            self.scopes.pop()

    def stmt(self, s):
        op = s[0]
        if op not in ("let", "var", "set", "store", "atomic", "loop", "barrier"):
            note(op)
        if op in ("let", "var"):
            self.scopes[-1][s[1]] = self.expr(s[2])
            note(op, self.scopes[-1][s[1]][0])
        elif op == "set":
            self.assign(s[1], self.expr(s[2]))
            note(op, self.lookup(s[1])[0])
        elif op == "store":
            buf = self.mem[s[1]]
            idx = self.expr(s[2])[1]
            val = self.expr(s[3])[1]
            note("store", buf.ty, buf.space)
            if idx < buf.count:
                buf.v[idx] = val
        elif op == "atomic":
            self.atomic(s)
        elif op == "if":
            branch = s[2] if self.expr(s[1])[1] else (s[3] if len(s) > 3 else None)
            if branch is not None:
                yield from self.block([branch])
        elif op == "block":
            yield from self.block(s[1:])
        elif op == "loop":
            lo, hi = self.expr(s[2]), self.expr(s[3])
            note("loop", lo[0])
            i = as_int(lo[0], lo[1])
            while i < as_int(hi[0], hi[1]):
                self.scopes.append({s[1]: (lo[0], i & mask(lo[0]))})
                try:
                    yield from self.block(s[4:])
                except Continue:
                    pass
                except Break:
                    break
                finally:
                    self.scopes.pop()
                i += 1
        elif op == "while":
            while self.expr(s[1])[1]:
                try:
                    yield from self.block(s[2:])
                except Continue:
                    continue
                except Break:
                    break
        elif op == "break":
            raise Break()
        elif op == "continue":
            raise Continue()
        elif op == "return":
            raise Return()
        elif op == "barrier":
            note("barrier", s[1])
            yield
        else:
            raise ModelError("statement %s" % op)


# --- output --------------------------------------------------------------
def spell(ty, bits):
    if ty == "f32":
        return "0x%08xf" % (QNAN if is_nan_bits(bits) else bits)
    v = as_int(ty, bits)
    suffix = {"u32": "u", "i32": "i", "u64": "u64", "i64": "i64"}[ty]
    if ty == "i32" and v < 0:
        return str(v)
    return "%d%s" % (v, suffix)


def expect_forms(outputs):
    lines = []
    for name, m in outputs.items():
        words = [spell(m.ty, b) for b in m.v]
        line = "  (expect (buffer %s (values" % name
        out = []
        for w in words:
            if len(line) + len(w) + 1 > 100:
                out.append(line)
                line = "     "
            line += " " + w
        out.append(line + ")))")
        lines.extend(out)
    return "\n".join(lines)


def same(ty, want, got):
    if ty == "f32" and is_nan_bits(want) and is_nan_bits(got):
        return True
    return want == got


def check(prog, outputs, path):
    problems = []
    covered = set()
    for e in prog.expects:
        if not isinstance(e, list) or e[0] != "buffer":
            continue
        name = e[1]
        at = 0
        rest = e[2:]
        if isinstance(rest[0], list) and rest[0][0] == "at":
            at = int(rest[0][1], 0)
            rest = rest[1:]
        m = outputs[name]
        vals = [literal_of(m.ty, t) for t in rest[0][1:]]
        for k, v in enumerate(vals):
            if not same(m.ty, v, m.v[at + k]):
                problems.append("%s: %s[%d] is %s in the model, the program expects %s"
                                % (path, name, at + k, spell(m.ty, m.v[at + k]), spell(m.ty, v)))
                break
        covered.add(name)
    for name in outputs:
        if name not in covered:
            problems.append("%s: output %s has no (expect (buffer %s ...))" % (path, name, name))
    return problems


def main(argv):
    mode = "print"
    if argv and argv[0] in ("--check", "--write"):
        mode = argv.pop(0)[2:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = 0
    for path in argv:
        text = open(path).read()
        try:
            prog = Program(parse(text))
            prog.text = text
            outputs = prog.run()
        except (ModelError, IndexError, KeyError, ValueError) as exc:
            print("%s: the model cannot run it: %s" % (path, exc), file=sys.stderr)
            bad += 1
            continue
        if mode == "check":
            problems = check(prog, outputs, path)
            for p in problems:
                print(p, file=sys.stderr)
            bad += bool(problems)
        elif mode == "write":
            if any(isinstance(e, list) and e[0] == "buffer" for e in prog.expects):
                print("%s: has (expect (buffer ...)) already; left as it is" % path, file=sys.stderr)
                continue
            forms = expect_forms(outputs)
            anchor = re.search(r"^  \(expect \(digest", text, re.M) or re.search(r"^  \(entry", text, re.M)
            text = text[: anchor.start()] + forms + "\n" + text[anchor.start():]
            open(path, "w").write(text)
        else:
            print(";; %s" % path)
            print(expect_forms(outputs))
    if mode == "check" and not bad:
        print("%d program(s): the stated values equal the model's" % len(argv))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
