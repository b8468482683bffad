"""Canonical comparison keys for IRIs and URIs (RFC 3987, RFC 3986).

The keys are those of the ``irinorm normalize`` command for the same line and the same
options, lenient repairs included: the work is done by the same Rust code, one record
entry point for both.

>>> import irinorm
>>> irinorm.normalize("HTTP://Example.COM:80/a/./b/../%7Ec")
'http://example.com/a/~c'
>>> n = irinorm.Normalizer(form="surt")
>>> n.normalize("http://www.example.com/a?b")
'com,example,www)/a?b'
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from functools import lru_cache
from typing import Any, Iterable, List, Optional, Tuple, Union

from . import _irinorm

__all__ = [
    "KEY_VERSION",
    "Normalizer",
    "equivalent",
    "lowest_common_rung",
    "migration_report",
    "normalize",
    "read_lines",
    "read_records",
]

#: The version of the keys: it changes when a key written by an earlier release could
#: differ for the same input and options (stored keys then need to be recomputed).
KEY_VERSION: int = _irinorm.KEY_VERSION

# The options of a key, in the order of the keyword arguments: (name, kind, default), from
# the library's one table of them (`KEY_OPTIONS` of `irinorm::ladder::settings`), where kind
# is "flag", "choice", "text" or "file".
_OPTIONS: Tuple[Tuple[str, str, Any], ...] = tuple(
    (name, kind, False if kind == "flag" else default)
    for name, kind, _choices, default, _help in _irinorm.KEY_OPTIONS
)
_OPTION_NAMES = frozenset(name for name, _, _ in _OPTIONS)

PathLike = Union[str, "os.PathLike[str]"]


def _read_rules(rules: Optional[PathLike]) -> Tuple[Optional[str], Optional[str]]:
    """The (origin, text) of a rules file given by path, or (None, None)."""
    if rules is None:
        return None, None
    if not isinstance(rules, (str, os.PathLike)):
        raise TypeError(
            f"rules must be the path of a TOML file (str or os.PathLike), got {type(rules).__name__}"
        )
    path = os.fspath(rules)
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        # As the command line reports a rules file it cannot read: `FILE: reason`.
        raise ValueError(f"{path}: {e.strerror or e}") from None


def _check_flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def _check_text(name: str, value: Any) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, got {type(value).__name__}")
    return value


def _state(options: dict) -> dict:
    """The options as the native normalizer takes them: checked, defaults filled in, and a
    rules file replaced by its name and text."""
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
    origin, text = _read_rules(options.get("rules"))
    state: dict = {}
    for name, kind, default in _OPTIONS:
        value = options.get(name, default)
        if kind == "file":
            state["rules_origin"], state["rules_text"] = origin, text
        elif kind == "flag":
            state[name] = _check_flag(name, value)
        else:
            state[name] = _check_text(name, value)
    return state


def _with_key_options(function: Any, *, checked: bool = True) -> Any:
    """`function`, which takes the key options as ``**options``, with a signature that names
    them (keyword-only, with their defaults), as ``help`` and ``inspect`` show it; and, if
    `checked`, refusing another name as a function that names them does."""
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    params += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, _, default in _OPTIONS
    ]
    wrapper = function
    if checked:

        @functools.wraps(function)
        def wrapper(*args: Any, **options: Any) -> Any:
            for name in options:
                if name not in _OPTION_NAMES:
                    raise TypeError(
                        f"{function.__qualname__}() got an unexpected keyword argument {name!r}"
                    )
            return function(*args, **options)

    wrapper.__signature__ = signature.replace(parameters=params)
    return wrapper


class Normalizer:
    """A configured normalizer: the comparison ladder up to one rung, writing one form.

    Options (all keyword-only; the command line's ``normalize`` options of the same names):

    - ``level``: ``"string"``, ``"syntax"``, ``"scheme"`` or ``"protocol"``. None (the
      default) means ``"scheme"``, or ``"protocol"`` when ``profile`` or ``rules`` is given.
    - ``form``: ``"uri"`` (default), ``"iri"`` or ``"surt"``.
    - ``profile``: a built-in rule profile of the protocol rung (``"crawler"``, the newest,
      or a pinned version such as ``"crawler@1"``; pin one for keys that are stored).
    - ``rules``: the path of a TOML rules file for the protocol rung, read once here (a
      pickled normalizer carries the text, not the path).
    - ``drop_fragment``, ``nfc``, ``strict``, ``absolute``, ``surt_scheme``: switches.
    - ``base``: an absolute IRI that relative references are resolved against.

    Bad options raise ``ValueError`` here, with the command line's message. Bad records never
    raise: their key is None (null in Arrow), and ``check_arrow`` says why.
    """

    __slots__ = ("_native", "_state")

    @_with_key_options
    def __init__(self, **options: Any) -> None:
        state = _state(options)
        self._native = _irinorm._Normalizer(**state)
        self._state = state

    @classmethod
    def _from_state(cls, state: dict) -> "Normalizer":
        self = cls.__new__(cls)
        self._native = _irinorm._Normalizer(**state)
        self._state = dict(state)
        return self

    def __reduce__(self):
        # The options travel, the rules as their text: a worker that unpickles this needs no
        # access to the driver's files.
        return (_restore, (dict(self._state),))

    def __repr__(self) -> str:
        shown = []
        for name, _, default in _OPTIONS:
            if name == "rules":
                value = self._state["rules_origin"]
            else:
                value = self._state[name]
            if value != default:
                shown.append(f"{name}={value!r}")
        return f"irinorm.Normalizer({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Normalizer):
            return NotImplemented
        return self._state == other._state

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._state.items())))

    @property
    def options(self) -> dict:
        """The options this normalizer was built with (rules as their file name)."""
        d = {name: self._state.get(name) for name, _, _ in _OPTIONS if name != "rules"}
        d["rules"] = self._state["rules_origin"]
        return d

    def normalize(self, url: Optional[str]) -> Optional[str]:
        """The key of one record, or None when it is invalid or None."""
        if url is not None and not isinstance(url, str):
            raise _url_type_error(url)
        return self._native.normalize(url)

    def normalize_many(self, urls: Iterable[Any]) -> list:
        """The keys of many records, in order: None for an invalid record, for None, and for
        anything that is not a str (a float NaN of a pandas column, say)."""
        return self._native.normalize_many(urls)

    def normalize_arrow(self, array: Any, *, threads: int = 1) -> Any:
        """The keys of an Arrow array of strings, null where a record is null or invalid.

        ``array`` is a pyarrow ``string``, ``large_string`` or ``string_view`` Array or
        ChunkedArray, or anything with the Arrow PyCapsule interface (``__arrow_c_array__``
        or ``__arrow_c_stream__``). An array gives a ``pyarrow.Array``, a stream (a
        ChunkedArray) a ``pyarrow.ChunkedArray``, of the input's string type and length.
        A dictionary-encoded array (Parquet's and Polars' categoricals) gives a dictionary
        array with the same indices: each distinct value is keyed once. Anything else is a
        ``TypeError`` that names its type.

        The GIL is released while the batch runs. ``threads`` > 1 splits each array over a
        pool of that many threads (0: one per core); the result is the same.
        """
        return self._native.normalize_arrow(_arrow(array), _check_threads(threads))

    def check_arrow(self, array: Any) -> Any:
        """Per record: a struct of ``key`` (null when invalid), ``error_kind``,
        ``error_column`` and ``error_message`` (null when valid) and ``warnings`` (a list of
        warning kinds, such as ``"idna"``). Null records give all fields null."""
        return self._native.check_arrow(_arrow(array))

    def explain(self, url: str) -> dict:
        """The key of one record and the steps that changed it, as a dict with ``input``,
        ``key`` (None when invalid), ``error`` (None, or a dict of ``kind``, ``column`` and
        ``message``), ``steps`` (dicts of ``component``, ``rule``, ``before``, ``after``)
        and ``warnings`` (dicts of ``kind``, ``column``, ``message``)."""
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, got {type(url).__name__}")
        # The library's JSON of the explained record, its members in this dict's order.
        row = json.loads(self._native.explain_json(url))
        return {name: row.get(name) for name in _EXPLAINED}


# The members of the dict `Normalizer.explain` returns, in order.
_EXPLAINED = ("input", "key", "error", "steps", "warnings")


def _restore(state: dict) -> Normalizer:
    return Normalizer._from_state(state)


def _check_threads(threads: Any) -> int:
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int, got {threads!r}")
    if threads < 0:
        raise ValueError(f"threads must be 0 (one per core) or more, got {threads}")
    return threads


@lru_cache(maxsize=64)
def _cached(state: Tuple[Tuple[str, Any], ...]) -> Normalizer:
    return Normalizer._from_state(dict(state))


def _url_type_error(url: Any) -> TypeError:
    """The error of a record that is neither a str nor None (the check stays inline at each
    call site: it is on the path of every call)."""
    return TypeError(f"url must be a str or None, got {type(url).__name__}")


def _arrow(array: Any) -> Any:
    """`array` if it is an Arrow array or stream (it has the Arrow PyCapsule interface), else
    a ``TypeError`` saying what is taken."""
    if hasattr(array, "__arrow_c_array__") or hasattr(array, "__arrow_c_stream__"):
        return array
    raise TypeError(
        "expected an Arrow array of strings: a pyarrow Array or ChunkedArray (of string, "
        "large_string or string_view, or a dictionary of them), or an object with the Arrow "
        f"PyCapsule interface (__arrow_c_array__ or __arrow_c_stream__); got "
        f"{type(array).__module__}.{type(array).__qualname__}"
        " (for a list, use normalize_many; for a pandas Series, pyarrow.array(series))"
    )


@lru_cache(maxsize=64)
def _cached_by_options(items: Tuple[Tuple[str, Any], ...]) -> Normalizer:
    return Normalizer(**dict(items))


def _normalizer_for(options: dict) -> Normalizer:
    """A normalizer for these options, reused between calls with the same options. Options
    without a rules file are looked up as given (no checking, no defaults filled in: a
    module-level call costs a dict lookup, not a normalizer); with one, the file is read at
    each call, so an edited file is seen."""
    if options.get("rules") is None:
        try:
            return _cached_by_options(tuple(sorted(options.items())))
        except TypeError:  # an unhashable value: checked (and refused) below
            pass
    return _cached(tuple(_state(options).items()))


@functools.partial(_with_key_options, checked=False)
def normalize(url: Optional[str], **options: Any) -> Optional[str]:
    """The key of one record, or None when it is invalid (or None). The options are those of
    :class:`Normalizer`; for many records build one and use its methods."""
    if options:
        # An unknown option is refused when its normalizer is built (not looked up again).
        return _normalizer_for(options).normalize(url)
    # The README's first call: straight to the default normalizer's native method.
    if url is not None and not isinstance(url, str):
        raise _url_type_error(url)
    return (_DEFAULT[0] if _DEFAULT else _default_native()).normalize(url)


# The default normalizer's native object, made at the first call of :func:`normalize`.
_DEFAULT: list = []


def _default_native() -> Any:
    _DEFAULT[:] = [Normalizer()._native]
    return _DEFAULT[0]


@functools.partial(_with_key_options, checked=False)
def lowest_common_rung(a: str, b: str, **options: Any) -> str:
    """The name of the lowest rung of the comparison ladder at which ``a`` and ``b`` have the
    same key (``"string"``, ``"syntax"``, ``"scheme"``, or ``"protocol"`` when a ``profile``
    or ``rules`` is given), or ``"different"``: the answer of ``irinorm compare``, from the
    library's ``lowest_common_rung``.

    The other options (``form``, ``drop_fragment``, ``base``...) apply at every rung;
    ``level`` caps the ladder at that rung (below ``"protocol"``, without the rules). A
    record that is invalid raises ``ValueError``.
    """
    if not isinstance(a, str) or not isinstance(b, str):
        raise TypeError("equivalent compares two str")
    if options.get("level") in _RUNGS_BELOW_PROTOCOL:
        # The rules take part only at the protocol rung: a cap below it leaves them out.
        options = {k: v for k, v in options.items() if k not in ("profile", "rules")}
    rung = _normalizer_for(options)._native.lowest_common_rung(a, b)
    return "different" if rung is None else rung


# The rungs below the protocol rung, from the library's names of the rungs (lowest first).
_LEVELS = next(choices for name, _, choices, _, _ in _irinorm.KEY_OPTIONS if name == "level")
_RUNGS_BELOW_PROTOCOL = tuple(_LEVELS[: list(_LEVELS).index("protocol")])

#: The earlier name of :func:`lowest_common_rung`, kept: it returns the name of a rung (or
#: ``"different"``), not a bool as the Rust ``irinorm::equivalent`` does.
equivalent = lowest_common_rung


def migration_report(
    array: Any, from_: Optional[dict] = None, to: Optional[dict] = None
) -> dict:
    """What moving a store from the keys of ``from_`` to the keys of ``to`` (each a dict of
    the options of :class:`Normalizer`, e.g. ``{"profile": "wayback"}`` and
    ``{"form": "surt"}``) does to the records of an Arrow string array (or stream; null rows
    are not records): the report of ``irinorm migrate --format json``, as a dict with
    ``records``, ``invalid_from``, ``invalid_to``, ``changed``, ``keys_from``, ``keys_to``,
    ``split_groups``, ``merged_keys``, ``merged_into`` and ``by_rule`` (a list of dicts with
    ``rule``, ``side``, ``changed``, ``split_groups``, ``merged_keys`` and ``examples``)."""
    source = Normalizer(**(from_ or {}))
    target = Normalizer(**(to or {}))
    return json.loads(source._native.migration_json(target._native, _arrow(array)))


def read_lines(path: PathLike) -> List[str]:
    """The records of a text file as the ``irinorm`` command reads them: split at line feeds,
    one carriage return before a line feed removed, a UTF-8 byte order mark at the start
    removed, and each octet that is not part of valid UTF-8 written ``%XX``, as the
    command's lenient repair writes it (never U+FFFD, which would give different records
    one key). The file is read whole; the rules are the library's (``records_of``)."""
    with open(path, "rb") as f:
        return _irinorm.read_records(f.read())


def read_records(data: bytes, *, start: bool = True) -> List[str]:
    """The records of ``data``, whole lines of a text file, as :func:`read_lines` reads the
    file. ``start=False`` for a piece that does not start the file (a block cut at a line
    feed, as Dask's ``read_bytes`` cuts them): a byte order mark there starts a record, and
    is not dropped."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    if start or not bytes(data[:3]) == b"\xef\xbb\xbf":
        return _irinorm.read_records(bytes(data))
    # A line feed in front keeps the mark; the empty record it makes is dropped.
    return _irinorm.read_records(b"\n" + bytes(data))[1:]
