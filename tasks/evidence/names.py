"""The names Python code binds and reads, scope by scope: what a snippet defines, what it
takes from elsewhere, and what nothing binds (an unbound name makes a snippet no reproduction)."""

from __future__ import annotations

import ast
import builtins

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def local_names(body: list[ast.AST]) -> set[str]:
    """The names a function's `body` binds in its own scope: not those its nested functions,
    classes or comprehensions bind for themselves, nor those it declares global or nonlocal."""
    out: set[str] = set()
    declared: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            out.add(node.name)
            stack += [*node.decorator_list, *getattr(node, "bases", [])]
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        out |= names_bound_here(node)
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
        stack += list(ast.iter_child_nodes(node))
    return out - declared


def names_bound_here(node: ast.AST) -> set[str]:
    """The names one node binds itself: a stored or deleted name, an import, an `except ... as`."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return {node.id}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    return set()


def names_bound(nodes) -> set[str]:
    out: set[str] = set()
    augmented = {id(n.target) for root in nodes for n in ast.walk(root) if isinstance(n, ast.AugAssign)}
    for root in nodes:
        for node in ast.walk(root):
            if id(node) not in augmented:
                out |= names_bound_here(node)
            if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
                out.add(node.name)
            if isinstance(node, (*FUNCTIONS, ast.Lambda)):
                a = node.args
                out |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
                out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                out |= set(node.names)
    return out


def names_read(nodes) -> set[str]:
    """Names read: loads, and the targets of `x += 1` (it reads x first)."""
    found = {n.id for root in nodes for n in ast.walk(root) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    found |= {
        n.target.id
        for root in nodes
        for n in ast.walk(root)
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
    }
    return found


def names_unbound(nodes) -> set[str]:
    """The names `nodes` read that nothing binds where they are read: a name a function binds
    for itself (`with pytest.raises(E) as exc:` in a helper) binds nothing at the top level,
    where the snippet may read the test module's own `exc`."""
    nodes = list(nodes)
    walked = [node for root in nodes for node in ast.walk(root)]
    declared = {n for node in walked if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    # under `from __future__ import annotations` an annotation is a string nothing evaluates
    postponed = any(is_postponing(node) for node in walked)
    return free_names(nodes, declared, postponed) - set(dir(builtins)) - {"__file__"}


def is_postponing(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
    )


def free_names(nodes: list[ast.AST], enclosing: set[str], postponed: bool = False) -> set[str]:
    """The names one scope's `nodes` read that neither it nor an `enclosing` scope binds (in any
    order: a function body runs when called), then those of each function, lambda and class
    nested in it, with this scope's names added; annotations left out when `postponed`."""
    used: set[str] = set()
    bound: set[str] = set()
    nested: list[tuple[set[str], list[ast.AST]]] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.Lambda)):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
            # decorators, defaults and annotations run where the function is defined
            stack += [*getattr(node, "decorator_list", []), *a.defaults, *(d for d in a.kw_defaults if d)]
            if not postponed:
                stack += [x.annotation for x in params if x.annotation]
                stack += [r for r in [getattr(node, "returns", None)] if r]
            if not isinstance(node, ast.Lambda):
                bound.add(node.name)
            nested.append(({x.arg for x in params}, node.body if isinstance(node.body, list) else [node.body]))
            continue
        if isinstance(node, ast.ClassDef):
            bound.add(node.name)
            stack += [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
            nested.append((set(), node.body))
            continue
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            used.add(node.target.id)  # `x += 1` reads x first
            stack.append(node.value)
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(al.asname or al.name).split(".")[0] for al in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.AnnAssign) and postponed:
            stack += [node.target, *([node.value] if node.value else [])]
            continue
        stack.extend(ast.iter_child_nodes(node))
    free = used - bound - enclosing
    for params, body in nested:
        free |= free_names(body, enclosing | bound | params, postponed)
    return free
