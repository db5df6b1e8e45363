"""Reduces a failing generated program to a small one with the same failure class (fuzz.py).

Greedy passes until nothing changes or the deadline passes: drop statements (innermost and last
first), splice scope bodies in place, replace an expression node by one of its operands, lower the
run-time values of dynamic dims, drop option keys; after every edit, outputs no statement writes
and tensors nothing reads are removed. An edit is kept only when the edited program fails the same
way (class, stage, crash kind); an edit that makes the spec invalid is simply not kept.
"""
import os
import re
import shutil
import time

import model as M


def _lists(body, path=()):
    """Every statement list in the program, with its path, innermost first."""
    out = []
    for i, s in enumerate(body):
        for j, lst in enumerate(s.items()):
            out += _lists(lst, path + ((i, j),))
    out.append((path, body))
    return out


def _walk_all(body):
    for s in body:
        yield s
        for lst in s.items():
            yield from _walk_all(lst)


def _get_list(prog, path):
    lst = prog.body
    for i, j in path:
        lst = lst[i].items()[j]
    return lst


def _exprs(prog):
    """(statement-list path, index) of every statement with an expression."""
    out = []
    for path, lst in _lists(prog.body):
        for k, s in enumerate(lst):
            if isinstance(s, (M.Bind, M.Assemble)):
                out.append((path, k))
    return out


def _node_paths(node, path=()):
    out = [path]
    for i, c in enumerate(node.children()):
        out += _node_paths(c, path + (i,))
    return out


def _node_at(node, path):
    for i in path:
        node = node.children()[i]
    return node


def prune(prog):
    text = str([s.emit() for s in prog.body])
    written = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\[[^\]]*\] = ", text))
    for o in list(prog.outputs):
        if o not in written and len(prog.outputs) > 1:
            del prog.outputs[o]
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    for n in list(prog.inputs):
        if n not in used:
            del prog.inputs[n]
    for n in list(prog.tensors):
        if n not in used:
            del prog.tensors[n]
    shapes = str([t["shape"] for t in list(prog.inputs.values()) + list(prog.outputs.values())
                  + list(prog.tensors.values())])
    for d in list(prog.dims):
        if d not in used and not re.search(r"\b" + d + r"\b", shapes):
            del prog.dims[d]
    return prog


def candidates(prog):
    # 0. drop a chunk of statements (delta debugging: halves, then quarters, ...)
    for path, lst in _lists(prog.body):
        n = len(lst)
        size = n // 2
        while size >= 2:
            for start in range(0, n - size + 1, size):
                def edit(p, path=path, start=start, size=size):
                    del _get_list(p, path)[start:start + size]
                yield f"drop {size} statements", edit
            size //= 2
    # 1. drop one statement
    for path, lst in _lists(prog.body):
        for k in reversed(range(len(lst))):
            def edit(p, path=path, k=k):
                del _get_list(p, path)[k]
            yield "drop statement", edit
    # 2. splice a scope body in place; a loop of one iteration's body needs its variable, so loops stay
    for path, lst in _lists(prog.body):
        for k, s in enumerate(lst):
            if isinstance(s, M.Block):
                def edit(p, path=path, k=k):
                    lst2 = _get_list(p, path)
                    lst2[k:k + 1] = lst2[k].body
                yield "splice scope", edit
            if isinstance(s, M.Loop) and s.unroll:
                def edit(p, path=path, k=k):
                    loop = _get_list(p, path)[k]
                    loop.unroll = [min(loop.unroll)]
                yield "fewer gears", edit
    # 3. an expression node by one of its operands
    for path, k in _exprs(prog):
        s = _get_list(prog, path)[k]
        for np_ in _node_paths(s.expr):
            node = _node_at(s.expr, np_)
            for ci, c in enumerate(node.children()):
                if isinstance(c, M.Const):
                    continue
                def edit(p, path=path, k=k, np_=np_, ci=ci):
                    st = _get_list(p, path)[k]
                    n = _node_at(st.expr, np_)
                    child = n.children()[ci]
                    if not np_:
                        st.expr = child
                    else:
                        _node_at(st.expr, np_[:-1]).replace_child(np_[-1], child)
                yield "operand for node", edit
    # 4. smaller run-time dims
    for d, v in prog.dims.items():
        if isinstance(v, dict) and prog.dimval[d] > 1:
            for nv in sorted({1, prog.dimval[d] // 2, prog.dimval[d] - 1}):
                if 0 < nv < prog.dimval[d]:
                    def edit(p, d=d, nv=nv):
                        p.dimval[d] = nv
                    yield "smaller dim", edit
    # 5. option keys
    for g in list(prog.options):
        def edit(p, g=g):
            del p.options[g]
        yield "drop options", edit


def shrink(tools, prog, res, work, deadline):
    """(smallest program, its Result, accepted steps)."""
    from fuzz import evaluate
    sig = res.signature()
    best, best_res = prog.clone(), res
    steps = 0
    changed = True
    n = 0
    while changed and time.time() < deadline:
        changed = False
        for what, edit in list(candidates(best)):
            if time.time() >= deadline:
                break
            cand = best.clone()
            try:
                edit(cand)
            except (IndexError, AttributeError):
                continue
            prune(cand)
            n += 1
            d = os.path.join(work, str(n))
            try:
                r = evaluate(tools, cand, d)
            except M.ModelError:
                continue
            finally:
                shutil.rmtree(d, ignore_errors=True)
            if r.signature() == sig:
                best, best_res = cand, r
                steps += 1
                print(f"  shrink seed {prog.seed}: step {steps} ({what}), {n} tries, "
                      f"{sum(1 for _ in _walk_all(best.body))} statements", flush=True)
                changed = True
                break  # the candidate list refers to the old program
    return best, best_res, steps
