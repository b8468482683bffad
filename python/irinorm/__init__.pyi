import os
from typing import Any, Iterable, List, Literal, Optional, TypedDict, Union

from typing_extensions import Unpack

_PathLike = Union[str, os.PathLike[str]]
_Level = Literal["string", "syntax", "scheme", "protocol"]
_Form = Literal["uri", "iri", "surt"]
_Rung = Literal["string", "syntax", "scheme", "protocol", "different"]

KEY_VERSION: int

class Step(TypedDict):
    component: str
    rule: str
    before: str
    after: str

class Problem(TypedDict):
    kind: str
    column: int
    message: str

class Explanation(TypedDict):
    input: str
    key: Optional[str]
    error: Optional[Problem]
    steps: List[Step]
    warnings: List[Problem]

class _KeyOptions(TypedDict, total=False):
    """The keyword arguments of ``normalize`` and ``lowest_common_rung``: those of
    ``Normalizer`` (the defaults are there)."""

    level: Optional[_Level]
    form: Optional[_Form]
    profile: Optional[str]
    rules: Optional[_PathLike]
    drop_fragment: bool
    nfc: bool
    base: Optional[str]
    strict: bool
    absolute: bool
    surt_scheme: bool

class Normalizer:
    def __init__(
        self,
        *,
        level: Optional[_Level] = None,
        form: Optional[_Form] = None,
        profile: Optional[str] = None,
        rules: Optional[_PathLike] = None,
        drop_fragment: bool = False,
        nfc: bool = False,
        base: Optional[str] = None,
        strict: bool = False,
        absolute: bool = False,
        surt_scheme: bool = False,
    ) -> None: ...
    @property
    def options(self) -> dict[str, Any]: ...
    def normalize(self, url: Optional[str]) -> Optional[str]: ...
    def normalize_many(self, urls: Iterable[Any]) -> List[Optional[str]]: ...
    def normalize_arrow(self, array: Any, *, threads: int = 1) -> Any: ...
    def check_arrow(self, array: Any) -> Any: ...
    def explain(self, url: str) -> Explanation: ...
    def __reduce__(self) -> Any: ...

def normalize(url: Optional[str], **options: Unpack[_KeyOptions]) -> Optional[str]: ...
def lowest_common_rung(a: str, b: str, **options: Unpack[_KeyOptions]) -> _Rung: ...

equivalent = lowest_common_rung

class RuleCount(TypedDict):
    rule: str
    side: Literal["from", "to", "both"]
    changed: int
    split_groups: int
    merged_keys: int
    examples: List[dict[str, str]]

class MigrationReport(TypedDict):
    records: int
    invalid_from: int
    invalid_to: int
    changed: int
    keys_from: int
    keys_to: int
    split_groups: int
    merged_keys: int
    merged_into: int
    by_rule: List[RuleCount]

def migration_report(
    array: Any, from_: Optional[dict[str, Any]] = None, to: Optional[dict[str, Any]] = None
) -> MigrationReport: ...
def read_lines(path: _PathLike) -> List[str]: ...
def read_records(data: bytes, *, start: bool = ...) -> List[str]: ...
