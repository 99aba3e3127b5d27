"""Names and declarations that module code refuses (for :mod:`analysis.script.module_syntax`): ``let``,
``await``, ``eval`` or ``arguments`` declared or assigned, ``await`` where it is no operator, an assignment to
what cannot be assigned, a ``"use strict"`` directive beside non-simple parameters, a tagged template on an
optional chain, and declarations of one name that clash.  Each says whether esprima must be asked.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from .script import Binding, ExecScript

_FEW = 4  # declarations of one name compared pairwise; more are compared by scope (_clashes)


_MISNAMES = frozenset({"let", "await", "eval", "arguments"})
# a callee ``let`` or ``await`` is that word, then blanks or comments (``/``; any non-ASCII byte: Unicode spaces are
# several), then its arguments (``(``, a template's backquote) or ``?.``: a script without such text calls neither,
# so its calls are not read one by one for them (most scripts: the callee's type is a call into tree-sitter).  Two
# patterns, each starting with its literal word: ``re`` then skips to the word's occurrences (an alternation of the
# two is tried at every byte, dearer than the pass it saves)
_CALLED_AWAIT = re.compile(rb"await[ \t\n\r\v\f\x80-\xff]*[(/`?]")
_CALLED_LET = re.compile(rb"let[ \t\n\r\v\f\x80-\xff]*[(/`?]")


def _misnames(script: ExecScript, called: bool = True) -> bool:
    """``let``, ``await``, ``eval`` or ``arguments`` declared or assigned, ``let`` called as a name, and ``await``
    where it is no operator: tree-sitter reads ``await (f)()`` as a call of ``await``, which is V8's ``await``
    operator wherever it may stand (at the top level, in an async function's body); and a tagged template on an
    optional chain (:func:`_tags_a_chain`), read in the same pass over the calls.  ``called=False``: the
    pre-check's one pass over the text (module_text.text_suspects, its CALLED pattern) found none of the text
    the call pass below needs, so it is skipped (the text tests below would find none either)."""
    if not script.bindings.keys().isdisjoint(_MISNAMES):  # one C call, not four lookups (stop 44)
        return True
    structure = script.structure
    # assigned_names reads only these two groups: with both empty it is [] (stop 44: most scripts assign nothing)
    if (structure["assign"] or structure["loop"]) and any(
        script.name_of(target) in _MISNAMES for target in script.assigned_names()
    ):
        return True
    if not called:
        return False
    data = script.data
    tags = b"?." in data and b"`" in data  # a tagged chain's callee holds ``?.``, its template a backquote
    awaits = _CALLED_AWAIT.search(data)
    if not tags and awaits is None and (b"let" not in data or _CALLED_LET.search(data) is None):
        return False
    if awaits is not None and b"?" in data and _await_questioned(script):
        return True
    for captures in script.structure["call"]:  # one pass over the calls for both readings
        callee = captures["callee"][0]
        if callee.type == "identifier":
            name = script.text(callee)
            if name == "let" or name == "await" and _await_misused(script, captures["call"][0]):
                return True
        elif tags and _tags_a_chain(script, captures["call"][0], callee):
            return True
    return False


# ``await`` then blanks and ``?`` or a comment's ``/``: ``await?.x``, ``await /*c*/ ?.[x]``, ``await ? a : b``
# (stop 44's miss 1), placed in the tree: the name ``await`` is never one in module code, and ``?`` never begins
# the operator's operand
_QUESTIONED_AWAIT = re.compile(rb"await[ \t\n\r\v\f\x80-\xff]*[?/]")


def _await_questioned(script: ExecScript) -> bool:
    """Whether a name ``await`` (not a property's, nor in a string or comment) is an optional chain's object or
    callee, or a conditional's test."""
    root = script.root
    for m in _QUESTIONED_AWAIT.finditer(script.data):
        start = m.start()
        node = root.descendant_for_byte_range(start, start + 5)
        if node is None or node.type != "identifier" or node.start_byte != start or node.end_byte != start + 5:
            continue
        parent = node.parent
        if parent is None:
            continue
        if parent.type == "ternary_expression":
            if parent.child_by_field_name("condition") == node:
                return True
        elif parent.child_by_field_name("optional_chain") is not None and node in (
            parent.child_by_field_name("object"),
            parent.child_by_field_name("function"),
        ):
            return True
    return False


def _await_misused(script: ExecScript, call: Node) -> bool:
    """A call of ``await`` refused in module code: where ``await`` is no operator (:func:`_await_refused`), or
    an optional call (``await?.(1)``, ``await /*c*/ ?.(1)``), never the operator's form."""
    return call.child_by_field_name("optional_chain") is not None or _await_refused(script, call)


def _await_refused(script: ExecScript, node: Node) -> bool:
    """Whether ``await`` at ``node`` stands where module code refuses it: in a function that is not async, or in an
    async function's parameters (at the top level it is the operator)."""
    function = script.innermost_function(node)
    if function == script.root:
        return False
    if not any(c.type == "async" for c in function.children):
        return True
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    return parameters is not None and parameters.start_byte <= node.start_byte < parameters.end_byte


def _strict_directive_refused(script: ExecScript) -> bool:
    """A ``"use strict"`` directive in a function whose parameters are not all plain names (an early error
    whatever the mode; at the top of a module the directive changes nothing).  Found by its text in the body."""
    if "use strict" not in script.source:
        return False
    for captures in script.structure["params"]:
        parameters = captures["params"][0]
        if any(c.type not in ("identifier", "comment") for c in parameters.named_children):
            body = script.innermost_function(parameters).child_by_field_name("body")
            if body is not None and script.data.find(b"use strict", body.start_byte, body.end_byte) != -1:
                return True
    return False


def _tags_a_chain(script: ExecScript, call: Node, callee: Node) -> bool:
    """A tagged template on an optional chain (``a?.b`x` ``)."""
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and arguments.type == "template_string" and "?." in script.text(callee)


def _assigns_badly(script: ExecScript) -> bool:
    """An assignment or update whose target is not a plain name, member or (for ``=``) pattern."""
    for captures in script.structure["assign"]:
        node = captures["assign"][0]
        target = node.child_by_field_name("argument" if node.type == "update_expression" else "left")
        if target is None:
            continue
        kind = target.type
        if kind in ("member_expression", "subscript_expression"):
            if "?." in script.text(target):
                return True
        elif kind in ("object_pattern", "array_pattern"):  # ``[a?.b] = c``: a chain is no target (stop 44)
            if (
                node.type != "assignment_expression"
                or script.data.find(b"?.", target.start_byte, target.end_byte) != -1
            ):
                return True
        elif kind != "identifier":
            return True
    return False


def _redeclares(script: ExecScript) -> bool:
    """A name declared twice where module code refuses it ("has already been declared", "duplicate parameter
    names"): see :func:`_conflict`.  A name declared a few times is compared pairwise; one declared more often
    (``const x`` in each of a thousand blocks) by :func:`_clashes`, which finds the same clashes by scope
    (pairwise, 64 declarations of one name were 2,016 comparisons)."""
    for bindings in script.bindings.values():
        if len(bindings) < 2:
            continue
        if len(bindings) > _FEW:
            if _clashes(script, bindings):
                return True
            continue
        for i, first in enumerate(bindings):
            for second in bindings[i + 1 :]:
                if _conflict(script, first, second) or _conflict(script, second, first):
                    return True
    return False


def _clashes(script: ExecScript, bindings: list[Binding]) -> bool:
    """Whether any two of ``bindings`` (of one name) clash as :func:`_conflict` says, without comparing every
    pair: declarations in one scope clash when one is lexical or both are parameters (or catch names); a
    parameter or catch name clashes with a lexical one at the top of its body; a ``var`` with a lexical one whose
    scope holds it in the same function.  Names of function and class expressions never clash."""
    kept = [b for b in bindings if not (b.kind in ("function", "class") and b.scope.type in _EXPRESSION_NAMED)]
    by_scope: dict[int, list[Binding]] = {}
    for binding in kept:
        by_scope.setdefault(binding.scope.id, []).append(binding)
    lexical_scopes: dict[int, Node] = {}
    for same in by_scope.values():
        lexical = [b for b in same if _lexical(script, b)]
        if len(same) > 1 and (
            lexical or sum(1 for b in same if b.kind == "param") > 1 or sum(1 for b in same if b.kind == "catch") > 1
        ):
            return True
        if lexical:
            lexical_scopes[same[0].scope.id] = same[0].scope
    if not lexical_scopes:
        return False
    functions = {key: script.innermost_function(scope) for key, scope in lexical_scopes.items()}
    for binding in kept:
        if binding.kind in ("param", "catch"):
            body = binding.scope.child_by_field_name("body")
            if body is not None and body.id in lexical_scopes:
                return True
        elif binding.kind == "var":
            function = script.innermost_function(binding.node)
            for key, scope in lexical_scopes.items():
                if key != binding.scope.id and _holds(scope, binding.node) and functions[key] == function:
                    return True
    return False


_EXPRESSION_NAMED = frozenset({"function_expression", "generator_function", "class"})


def _conflict(script: ExecScript, first: Binding, second: Binding) -> bool:
    """Whether two declarations of one name clash: in one scope when either is lexical (or both are parameters
    of one function, or names of one catch parameter); a ``var`` inside the scope of a lexical one in the same
    function; a lexical one at the top of a function's body (or a catch block) and a parameter of it (or the
    catch's).  A lexical declaration in an inner block only shadows.  The name of a function or class
    expression is seen only inside it, and never clashes."""
    if (
        first.kind in ("function", "class")
        and first.scope.type in _EXPRESSION_NAMED
        or second.kind in ("function", "class")
        and second.scope.type in _EXPRESSION_NAMED
    ):
        return False
    if first.scope == second.scope:
        return (
            first.kind == second.kind
            and first.kind in ("param", "catch")
            or _lexical(script, first)
            or _lexical(script, second)
        )
    if not _lexical(script, first):
        return False
    if second.kind == "var":
        return _holds(first.scope, second.node) and script.innermost_function(first.scope) == script.innermost_function(
            second.node
        )
    if second.kind == "param":
        return first.scope == second.scope.child_by_field_name("body")
    if second.kind == "catch":
        return first.scope == second.scope.child_by_field_name("body")
    return False


def _lexical(script: ExecScript, binding: Binding) -> bool:
    """``let``, ``const``, ``class``, an import, and a function declaration anywhere but at the top of a function's
    body (in a block, or at the top of the module, function declarations are lexical)."""
    if binding.kind in ("let", "const", "class", "import"):
        return True
    if binding.kind != "function":
        return False
    scope = binding.scope
    if scope.type != "statement_block":
        return True
    function = script.innermost_function(scope)
    return function == script.root or function.child_by_field_name("body") != scope


def _holds(scope: Node, node: Node) -> bool:
    return scope.start_byte <= node.start_byte and node.end_byte <= scope.end_byte
