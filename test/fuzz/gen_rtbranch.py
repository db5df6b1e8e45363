"""The fuzzer's hook for names first bound in both branches of a run-time `cond` (specs/README.md "Run-time
conditions"): PyPTO's `if is_first: acc = a else: acc = acc_prev + a`, then `acc` read after the branch. One
loop at the end of the body over the row blocks of its own input (`rbx`, a dynamic dim `RBN` that leaves a tail
block), with its own int32 flags (`rbf`) and output (`rbout`); it draws from its own stream (`rtbranch{seed}`,
after every other hook), so the rest of every seed's program is unchanged. Per seed, with probability PROB:

- `element`: the condition reads a scalar from a tensor (`rbf[rbb * R] > t`);
- `mixed`: a loop-variable test and / or a tensor scalar (`rbb % 2 == 1 and rbf[rbb * R] > t`);
- `static`: a condition the compiler decides per path of the loop (is_loop_begin, is_loop_end, `rbb == 0`);
- `both`: a run-time branch that also binds a scratch name with another shape in each branch (never read
  after), then a second run-time branch that rebinds the name (carried through it).

After the branches the name is read whole and through a column sum, which in the tail block must see only the
valid rows. WRONG (selftest only) names a kind whose model takes the other branch."""
import model as M
from gen_lang import RtIf
import hook_stream

KINDS = ("element", "mixed", "static", "both")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off
PROB = 0.1


class EnvIf(RtIf):
    """A run-time `cond` whose model reads tensors: `test(env)` sees the whole environment."""

    def run(self, env):
        for s in (self.then if self.test(env) else (self.els or [])):
            s.run(env)


def _flag(env, R):
    return int(env["tensors"]["rbf"][env["dims"]["rbb"] * R])


def condition(r, kind, R, nblk):
    """(text, test(env)) of the branch's condition."""
    t = r.randint(0, 2)
    if kind == "element":
        return f"rbf[rbb * {R}] > {t}", lambda e: _flag(e, R) > t
    if kind == "mixed":
        k = r.choice([2, 3])
        op = r.choice(["and", "or"])
        text = f"rbb % {k} == 1 {op} rbf[rbb * {R}] > {t}"
        if op == "and":
            return text, lambda e: e["dims"]["rbb"] % k == 1 and _flag(e, R) > t
        return text, lambda e: e["dims"]["rbb"] % k == 1 or _flag(e, R) > t
    if kind == "static":
        form = r.randrange(3)
        if form == 0:
            return "is_loop_begin(rbb)", lambda e: e["dims"]["rbb"] == 0
        if form == 1:
            return "is_loop_end(rbb)", lambda e: e["dims"]["rbb"] == nblk - 1
        return "rbb == 0", lambda e: e["dims"]["rbb"] == 0
    k = r.choice([2, 3])
    return f"rbb % {k} == 0", lambda e: e["dims"]["rbb"] % k == 0


def construct(r, prog, kind):
    dt = r.choice(FLOAT)
    R, D = r.choice([4, 8, 16]), r.choice([16, 32, 64])
    n = r.randint(1, 5 * R)
    nblk = M.ceil_div(n, R)
    prog.dims["RBN"] = {"dynamic": True, "max": 128}
    prog.dimval["RBN"] = n
    prog.inputs["rbx"] = {"dtype": dt, "shape": ["RBN", D]}
    prog.kinds["rbx"] = "normal"
    prog.inputs["rbf"] = {"dtype": "int32", "shape": ["RBN"], "values": [0, 3]}
    prog.kinds["rbf"] = "range:0:3"
    prog.outputs["rbout"] = {"dtype": dt, "shape": ["RBN", D]}
    text, test = condition(r, kind, R, nblk)
    if WRONG == kind:
        right = test
        test = lambda e: not right(e)  # noqa: E731
    xb = M.Ref("rbxb", dt)
    c1, c2 = r.choice([2, -3, 0.5]), r.choice([1, -1, 4])
    then = [M.Bind("rbacc", M.Bin("*", xb, M.Const(c1, dt), dt))]
    els = [M.Bind("rbacc", M.Bin("+", xb, M.Const(c2, dt), dt))]
    if kind == "both":  # a scratch name of another shape in each branch, not read after
        then = [M.Bind("rbtmp", M.Red("sum", xb, 1, True, dt)),
                M.Bind("rbacc", M.Bin("-", xb, M.Ref("rbtmp", dt), dt))]
        els = [M.Bind("rbtmp", M.Bin("*", xb, M.Const(c1, dt), dt)),
               M.Bind("rbacc", M.Bin("+", M.Ref("rbtmp", dt), M.Const(c2, dt), dt))]
    body = [M.Bind("rbxb", M.View("rbx", dt, [R, D], [f"rbb * {R}", 0], None)),
            EnvIf("cond", text, test, then, els)]
    if kind == "both":
        k = r.choice([2, 3])
        body.append(RtIf("cond", f"rbb % {k} == 1", lambda d: d["rbb"] % k == 1,
                         [M.Bind("rbacc", M.Bin("*", M.Ref("rbacc", dt), M.Const(2, dt), dt))]))
    acc = M.Ref("rbacc", dt)
    col = M.Red("sum", acc, 0, True, dt)  # the tail block's valid rows only
    body.append(M.Assemble("rbout", [f"rbb * {R}", 0], M.Bin("+", acc, M.Bin("*", col, M.Const(0.25, dt), dt), dt)))
    prog.body.append(M.Raw({"vec_tile": [R, D]}))
    prog.body.append(M.Loop("rbb", f"ceil_div(RBN, {R})", body))


def program_hook(g, prog):
    """With probability PROB (its own stream): one loop with names first bound in both branches of a cond."""
    drawn = hook_stream.draw(g, "rtbranch", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    construct(r, prog, kind)
    prog.rtbranch = [kind]


def used(prog):
    return ["rtbranch_" + k for k in (getattr(prog, "rtbranch", None) or [])]
