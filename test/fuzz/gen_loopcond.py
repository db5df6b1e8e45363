"""The fuzzer's hook for PyPTO's `pypto.loop(cond)` (issue 13, specs/README.md section 6 "A loop over a
condition"): a loop whose count is a condition (`count: COND` or `range: [COND]`) runs its body once when the
condition holds and never otherwise. One construct at the end of the body, with its own dims (`LCB`), inputs
(`lcin...`) and outputs (`lcout...`), drawn from its own stream (`loopcond{seed}`, after every other hook), so
every seed that draws nothing generates what it did before. Per seed, with probability PROB, one of:

- `static`: conditions decided at compile time: comparisons of literals and of constants bound before
  (`lcc1 = 5`, `lcc1 % 2 == 1 and lcc1 > 2`, `not ...`, `true`), true or false, at top level and in a static
  loop (whose variable the condition may compare);
- `dyn`: in a dynamic loop over `LCB` batches, conditions on the loop variable and the dynamic dim
  (`lcb % 2 == 0 and LCB > 2`), decided at run time per instance;
- `elem`: the same on an element of an int32 input (`lcin1f[lcb] > 1`), read at run time.

Each output row is first written one way, then the loop over the condition overwrites it another way (its body
reads the loop variable, 0 in the one iteration, in its offsets). The model runs the body when the condition
holds. WRONG (selftest only) names a construct whose model takes the condition's negation."""
import model as M
import hook_stream

KINDS = ("static", "dyn", "elem")
FLOAT = ("fp32", "fp16", "bf16")
FORCE = None  # one of KINDS: every seed takes it
WRONG = None  # one of KINDS: its model is off
PROB = 0.1


class LoopCond(M.Stmt):
    """`{loop: {var: v, count: COND}}` (or `range: [COND]`): the body once, with v = 0, when `test(dims)`;
    names bound in the body end with it."""

    def __init__(self, var, cond, test, body, key="count", name=None, wrong=False):
        self.var, self.cond, self.test, self.body, self.key, self.name, self.wrong = \
            var, cond, test, body, key, name, wrong

    def items(self):
        return [self.body]

    def emit(self):
        h = {"var": self.var, self.key: self.cond if self.key == "count" else [self.cond]}
        if self.name:
            h["name"] = self.name
        return {"loop": h, "body": [s.emit() for s in self.body]}

    def run(self, env):
        if bool(self.test(dict(env["dims"], __tensors=env["tensors"]))) == self.wrong:
            return
        saved = dict(env["values"])
        env["dims"][self.var] = 0
        for s in self.body:
            s.run(env)
        env["dims"].pop(self.var, None)
        env["values"] = saved


def _cond_text(r, names):
    """A random condition over `names` (name -> how to read it in the model) and literals: its text and
    its test on the dims."""
    def atom(first=False):
        n = next(iter(names)) if first else r.choice(sorted(names))  # the first atom reads the first name
        k = r.choice(["cmp", "mod"] if first else ["cmp", "mod", "lit"])
        if k == "lit":
            a, b = r.randint(0, 6), r.randint(0, 6)
            op = r.choice(["<", "<=", "==", "!=", ">", ">="])
            return f"{a} {op} {b}", lambda d, t=f"{a} {op} {b}": eval(t)
        if k == "mod":
            m, v = r.choice([2, 3]), r.randint(0, 1)
            op = r.choice(["==", "!="])
            tail = f" % {m} {op} {v}"
        else:
            op = r.choice(["<", "<=", "==", "!=", ">", ">="])
            tail = f" {op} {r.randint(0, 4)}"
        # the model reads the name (a dim, a loop variable, a constant or a tensor element `f[b]`) as `_v`
        return n + tail, lambda d, n=n, tail=tail: eval("_v" + tail, {"__builtins__": {}}, {"_v": names[n](d)})
    text, test = atom(True)
    for _ in range(r.randint(0, 2)):
        t2, f2 = atom()
        op = r.choice(["and", "or"])
        if op == "and":
            # `and` binds tighter than `or`: an `or` before it is parenthesised to mean what the model does
            text, test = f"({text}) and {t2}" if " or " in text else f"{text} and {t2}", \
                (lambda d, a=test, b=f2: a(d) and b(d))
        else:
            text, test = f"({text}) or {t2}" if " and " in text else f"{text} or {t2}", \
                (lambda d, a=test, b=f2: a(d) or b(d))
    if r.random() < 0.25:
        text, test = f"not ({text})", (lambda d, a=test: not a(d))
    return text, test


def _io(r, st, prog, rows, dt):
    st["n"] += 1
    x, out = f"lcin{st['n']}", f"lcout{st['n']}"
    D = r.choice([8, 16, 32])
    prog.inputs[x] = {"dtype": dt, "shape": [rows, D]}
    prog.kinds[x] = "normal"
    prog.outputs[out] = {"dtype": dt, "shape": [rows, D]}
    return x, out, D


def _row(x, dt, D, at):
    return M.View(x, dt, [1, D], [at, 0], None)


def _write_twice(r, x, out, dt, D, at, loop_var, cond, test, wrong, name=None):
    """out[at] = x[at] * -1, then the loop over `cond` overwrites it with x[at + var] * 2 + 1."""
    first = M.Assemble(out, [at, 0], M.Bin("*", _row(x, dt, D, at), M.Const(-1, dt), dt))
    at2 = f"{at} + {loop_var}" if at != 0 else loop_var
    second = M.Assemble(out, [at2, 0], M.Bin("+", M.Bin("*", _row(x, dt, D, at2), M.Const(2, dt), dt),
                                            M.Const(1, dt), dt))
    key = r.choice(["count", "range"])
    return [first, LoopCond(loop_var, cond, test, [second], key, name, wrong)]


def c_static(r, st, prog, dt):
    rows = r.randint(1, 6)
    x, out, D = _io(r, st, prog, rows, dt)
    wrong = WRONG == "static"
    prog.body.append(M.Raw({"vec_tile": [1, D]}))
    st["n"] += 1
    c = f"lcc{st['n']}"
    v = r.randint(0, 6)
    prog.body.append(M.Raw(f"{c} = {v}"))
    # Row 0 at top level on the constant; the other rows in a static loop whose variable the condition compares.
    text, test = _cond_text(r, {c: lambda d, v=v: v})
    prog.body += _write_twice(r, x, out, dt, D, 0, "lci", text, test, wrong)
    if rows > 1:
        s = "lcs"
        text2, test2 = _cond_text(r, {c: lambda d, v=v: v, s: lambda d: d["lcs"]})
        body = _write_twice(r, x, out, dt, D, s, "lcj", text2, test2, wrong)
        prog.body.append(M.Loop(s, f"{rows} - 1", body, kind="static"))
        # the static loop covers rows 0 .. rows - 2; the last row is written once more, plainly
        prog.body.append(M.Assemble(out, [rows - 1, 0], M.Bin("*", _row(x, dt, D, rows - 1), M.Const(3, dt), dt)))


def _dynamic(r, st, prog, dt, elem):
    nb = r.randint(1, 6)
    prog.dims["LCB"] = {"dynamic": True, "max": 8}
    prog.dimval["LCB"] = nb
    x, out, D = _io(r, st, prog, "LCB", dt)
    wrong = WRONG == ("elem" if elem else "dyn")
    b = "lcb"
    names = {b: lambda d: d["lcb"], "LCB": lambda d: d["LCB"]} if r.random() < 0.5 else \
        {"LCB": lambda d: d["LCB"], b: lambda d: d["lcb"]}
    if elem:
        f = f"{x}f"
        prog.inputs[f] = {"dtype": "int32", "shape": ["LCB"], "values": [0, 3]}
        prog.kinds[f] = "range:0:3"
        names = {f"{f}[{b}]": (lambda d, f=f: int(d["__tensors"][f][d["lcb"]])), b: lambda d: d["lcb"]}
    text, test = _cond_text(r, names)
    prog.body.append(M.Raw({"vec_tile": [1, D]}))
    body = _write_twice(r, x, out, dt, D, b, "lci", text, test, wrong, name="LOOP_LC" if r.random() < 0.5 else None)
    prog.body.append(M.Loop(b, "LCB", body))


def c_dyn(r, st, prog, dt):
    _dynamic(r, st, prog, dt, False)


def c_elem(r, st, prog, dt):
    _dynamic(r, st, prog, dt, True)


CONSTRUCTS = {"static": c_static, "dyn": c_dyn, "elem": c_elem}


def program_hook(g, prog):
    """With probability PROB (its own stream): one loop(cond) construct at the end of the body."""
    drawn = hook_stream.draw(g, "loopcond", PROB, FORCE, KINDS)
    if drawn is None:
        return
    r, kind = drawn
    CONSTRUCTS[kind](r, {"n": 0}, prog, r.choice(FLOAT))
    prog.loopcond = [kind]


def used(prog):
    return ["loopcond_" + k for k in (getattr(prog, "loopcond", None) or [])]
