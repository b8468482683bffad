"""The key options of the Python package are the library's table of them
(``irinorm._irinorm.KEY_OPTIONS``, from ``KEY_OPTIONS`` of ``irinorm::ladder::settings``): the
signatures of ``Normalizer``, ``normalize`` and ``lowest_common_rung`` at run time, and those
of the typing stub ``__init__.pyi``. (``tests/it/key_options.rs`` holds the Rust side and the
stub's text to the same table.)"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import irinorm
from irinorm import _irinorm

STUB = Path(irinorm.__file__).with_name("__init__.pyi")


def table():
    """(name, default, choices) of each option, in order: a flag's default is False."""
    return [
        (name, False if kind == "flag" else default, tuple(choices))
        for name, kind, choices, default, _help in _irinorm.KEY_OPTIONS
    ]


@pytest.mark.parametrize(
    "function", [irinorm.Normalizer, irinorm.normalize, irinorm.lowest_common_rung, irinorm.equivalent]
)
def test_signatures_name_the_tables_options(function):
    params = [p for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY]
    assert [(p.name, p.default) for p in params] == [(n, d) for n, d, _ in table()]


def stub():
    return ast.parse(STUB.read_text(encoding="utf-8"))


def literal_aliases(tree):
    """The ``Name = Literal[...]`` aliases of the stub: name -> the quoted values."""
    aliases = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            if getattr(node.value.value, "id", None) == "Literal":
                elts = node.value.slice.elts
                aliases[node.targets[0].id] = tuple(e.value for e in elts)
    return aliases


def choices_of(annotation, aliases):
    """The values an annotation such as ``Optional[_Level]`` allows, () for any."""
    if isinstance(annotation, ast.Subscript) and getattr(annotation.value, "id", "") == "Optional":
        annotation = annotation.slice
    return aliases.get(getattr(annotation, "id", None), ())


def test_the_stub_is_the_table():
    tree = stub()
    aliases = literal_aliases(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    init = next(f for f in classes["Normalizer"].body if getattr(f, "name", "") == "__init__")
    args = init.args
    got = [
        (a.arg, ast.literal_eval(d), choices_of(a.annotation, aliases))
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
    ]
    assert got == table()
    # `normalize` and `lowest_common_rung` take them as `_KeyOptions`, typed alike.
    typed = [
        (f.target.id, choices_of(f.annotation, aliases))
        for f in classes["_KeyOptions"].body
        if isinstance(f, ast.AnnAssign)
    ]
    assert typed == [(n, c) for n, _, c in table()]


def test_unknown_options_are_refused_everywhere():
    for call in (
        lambda: irinorm.Normalizer(colour=1),
        lambda: irinorm.normalize("http://a/", colour=1),
        lambda: irinorm.lowest_common_rung("http://a/", "http://a/", colour=1),
    ):
        with pytest.raises(TypeError, match="colour"):
            call()
