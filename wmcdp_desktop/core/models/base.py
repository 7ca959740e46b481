"""Shared base for every document model.

Decisions (see docs/FORMATS.md):
- ``strict=True``: no silent coercion ("3" is not 3, true is not 1) so the models and the
  published JSON Schemas agree on every document.
- ``extra="forbid"``: an unknown field is an error (usually a typo that would otherwise be lost).
- ``frozen=True``: documents are values; the UI builds new ones instead of mutating.
- Every list and dict stops at its first invalid item (pydantic's ``fail_fast``): a small hostile file
  holding a million bad items would otherwise make millions of validation errors (gigabytes); one bad
  item per list is reported instead of all of them.
- Field docstrings become ``description`` in the generated JSON Schemas; ``coordinator/publish/schemas.py`` reads them
  when it writes the schemas (pydantic's ``use_attribute_docstrings`` parsed the source of every model
  at import: 0.1-0.2 s of the app's start-up).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, model_validator
from pydantic_core import CoreSchema

COLLECTION_SCHEMAS = frozenset({"list", "dict", "set", "frozenset", "tuple"})
"""pydantic-core schema types that take ``fail_fast``."""

NULL_MESSAGE = "null is not allowed; leave the field out instead"


class _Null:
    """Stands for an explicit JSON null given for a field (see ``Document._no_null``)."""

    def __repr__(self) -> str:
        return "null"


NULL: Any = _Null()


def _fail_fast(schema: Any) -> None:
    """Set ``fail_fast`` on every collection of a core schema (nested schemas included, metadata left alone)."""
    if isinstance(schema, dict):
        if schema.get("type") in COLLECTION_SCHEMAS:
            schema["fail_fast"] = True
        for key, value in schema.items():
            if key != "metadata":
                _fail_fast(value)
    elif isinstance(schema, list):
        for value in schema:
            _fail_fast(value)


class Document(BaseModel):
    """Base of all WM-CDP document models."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        frozen=True,
        validate_default=False,
    )

    @model_validator(mode="before")
    @classmethod
    def _no_null(cls, data: Any) -> Any:
        # Optional fields are left out when unset; an explicit JSON null is not accepted (the seed
        # schemas have no nullable field). The generated JSON Schemas say the same
        # (coordinator/publish/schemas.py drops the null branch). A null field value is swapped for NULL, which no
        # field type accepts, so the error stays on the field; documents.py words it as NULL_MESSAGE.
        # One check per object instead of a Python call per field: record validation took 2.4x as
        # long with a per-field validator (docs/PERFORMANCE.md).
        if isinstance(data, dict) and None in data.values():
            return {k: NULL if v is None else v for k, v in data.items()}
        return data

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler, /) -> CoreSchema:
        schema = handler(source)
        _fail_fast(schema)
        return schema

    def to_json_obj(self) -> dict[str, Any]:
        """Plain JSON-ready dict; optional fields that are unset are left out."""
        return self.model_dump(mode="json", exclude_none=True)


def unique(values: list[Any], what: str = "items") -> list[Any]:
    """Validator body for JSON Schema ``uniqueItems``: reject repeated values."""
    seen: list[Any] = []
    for value in values:
        if value in seen:
            raise ValueError(f"{what} must be unique; {value!r} appears more than once")
        seen.append(value)
    return values
