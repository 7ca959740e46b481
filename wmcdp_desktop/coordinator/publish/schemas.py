"""The published JSON Schemas in ``schemas/``: generated from the models, plus the seed schema.

- ``benchmark-item.schema.json`` is the seed (``../shared/seeds/002_...``), kept unchanged.
- ``common.schema.json`` is built here from the same patterns and enums the models use.
- Every other file is generated from a pydantic model.

``python -m tools.schemas write`` (a developer's tool) regenerates them; ``python -m tools.schemas check`` (and a test) fails when a committed
file is stale.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from wmcdp_desktop.core.models import (
    BundleManifest,
    CandidateResponse,
    Case,
    RatingRecord,
    ResultsManifest,
    Rubric,
    Study,
    Task,
)
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.common import (
    DATETIME_PATTERN,
    IDENTIFIER_JSON_SCHEMA,
    SEMVER_PATTERN,
    CriterionVerdict,
    DecisionTarget,
    OperationalAction,
    Severity,
)
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.passphrases import PassphrasesFile
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
from wmcdp_desktop.core.strict_json import dumps_canonical

BASE_URI = "https://autoqa.example/schemas/"
"""The seed schema's ``$id`` base; all published schemas share it so relative ``$ref`` resolve."""

GENERATED: dict[str, type[BaseModel]] = {
    "rating-record.schema.json": RatingRecord,
    "cannot-rate-record.schema.json": CannotRateRecord,
    "rubric.schema.json": Rubric,
    "case.schema.json": Case,
    "study.schema.json": Study,
    "bundle-manifest.schema.json": BundleManifest,
    "task.schema.json": Task,
    "candidate-response.schema.json": CandidateResponse,
    "results-manifest.schema.json": ResultsManifest,
    "draft.schema.json": Draft,
    "unblinding-key.schema.json": UnblindingKey,
    "passphrases.schema.json": PassphrasesFile,
}
SEED_SCHEMA = "benchmark-item.schema.json"
COMMON_SCHEMA = "common.schema.json"


@functools.cache
def field_docstrings(cls: type) -> dict[str, str]:
    """Field name -> the docstring under it (``x: int`` then ``\"\"\"doc\"\"\"``), for ``cls`` and its bases.

    The models keep their field documentation as attribute docstrings. pydantic can read them itself
    (``use_attribute_docstrings``), but it does so for every model class when the models are imported,
    parsing their source (0.1-0.2 s of the rater app's start-up); the descriptions are only needed here,
    for the published schemas, so they are read here, the way pydantic reads them.
    """
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass in (object, BaseModel) or not issubclass(klass, BaseModel):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        node = ast.parse(source).body[0]
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt, nxt in itertools.pairwise(node.body):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                out[stmt.target.id] = inspect.cleandoc(nxt.value.value)
    return out


class _NoNullSchema(GenerateJsonSchema):
    """Optional fields are omitted, never null: drop the ``null`` branch and ``default: null``.

    Also gives each field the description of its docstring (:func:`field_docstrings`), through the same
    metadata pydantic itself would have set."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._classes: list[type] = []

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        self._classes.append(schema["cls"])
        try:
            return super().model_schema(schema)
        finally:
            self._classes.pop()

    def model_fields_schema(self, schema: core_schema.ModelFieldsSchema) -> JsonSchemaValue:
        docs = field_docstrings(self._classes[-1]) if self._classes else {}
        if docs:
            fields = {}
            for name, field in schema["fields"].items():
                doc = docs.get(name)
                if doc is not None:
                    metadata = dict(field.get("metadata") or {})
                    metadata["pydantic_js_updates"] = {"description": doc, **metadata.get("pydantic_js_updates", {})}
                    field = {**field, "metadata": metadata}
                fields[name] = field
            schema = {**schema, "fields": fields}
        return super().model_fields_schema(schema)

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        # pydantic writes constrained keys as patternProperties, which lets other keys through;
        # the models reject them, so say so: propertyNames + additionalProperties.
        out = super().dict_schema(schema)
        patterns = out.pop("patternProperties", None)
        if patterns and len(patterns) == 1:
            (pattern, value_schema), = patterns.items()
            out["propertyNames"] = {"pattern": pattern}
            out["additionalProperties"] = value_schema
        return out

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        if schema.get("default", ...) is None:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


_BOUND_KEYWORDS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}


def _standard_bounds(node: Any) -> Any:
    """Rename pydantic's ``ge``/``gt``/``le``/``lt`` to JSON Schema keywords, in place.

    pydantic (2.x) writes a bound on a type that has a before-validator (our ``Int``, which accepts 3.0
    as 3) under the constraint's Python name, which JSON Schema validators silently ignore.
    """
    if isinstance(node, dict):
        if node.get("type") in ("integer", "number"):
            for key, keyword in _BOUND_KEYWORDS.items():
                if key in node:
                    node[keyword] = node.pop(key)
        for value in node.values():
            _standard_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _standard_bounds(value)
    return node


def model_schema(name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one model, as published."""
    body = _standard_bounds(model.model_json_schema(schema_generator=_NoNullSchema, mode="validation"))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE_URI + name, **body}


def common_schema() -> dict[str, Any]:
    """``common.schema.json``: the shared ``$defs`` of FORMATS.md section 3."""

    def enum(tp: Any) -> list[str]:
        return list(get_args(tp))

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE_URI + COMMON_SCHEMA,
        "title": "AutoQA common definitions",
        "$defs": {
            "SemVer": {
                "description": "Semantic version MAJOR.MINOR.PATCH (pre-release/build allowed).",
                "type": "string",
                "pattern": SEMVER_PATTERN,
            },
            "Identifier": {
                "description": (
                    "1-128 characters: letters, digits and ._- ; starts alphanumeric, does not end in '.', and is "
                    "not a Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an extension)"
                ),
                **IDENTIFIER_JSON_SCHEMA,
            },
            "DateTime": {
                "description": "RFC 3339 date-time with offset.",
                "type": "string",
                "format": "date-time",
                "pattern": DATETIME_PATTERN,
            },
            "ContractRef": {
                "description": "The rubric/contract, by id and version.",
                "type": "object",
                "additionalProperties": False,
                "required": ["contractId", "contractVersion"],
                "properties": {
                    "contractId": {"$ref": "#/$defs/Identifier"},
                    "contractVersion": {"$ref": "#/$defs/SemVer"},
                },
            },
            "CaseRef": {
                "description": "The scenario, by id and version; sha256 of the case file when given.",
                "type": "object",
                "additionalProperties": False,
                "required": ["caseId", "caseVersion"],
                "properties": {
                    "caseId": {"$ref": "#/$defs/Identifier"},
                    "caseVersion": {"$ref": "#/$defs/SemVer"},
                    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                },
            },
            "CriterionVerdict": {"type": "string", "enum": enum(CriterionVerdict)},
            "Severity": {"type": "string", "enum": enum(Severity)},
            "SpanRef": {
                "description": (
                    "Character offsets in Unicode code points, end exclusive. end > start is checked by "
                    "the models (JSON Schema cannot compare two fields)."
                ),
                "type": "object",
                "additionalProperties": False,
                "required": ["source", "start", "end"],
                "properties": {
                    "source": {"type": "string", "enum": ["candidate_response", "scenario"]},
                    "turnIndex": {"type": "integer", "minimum": 0},
                    "start": {"type": "integer", "minimum": 0},
                    "end": {"type": "integer", "minimum": 0},
                    "quote": {"type": "string"},
                },
            },
            "DecisionTarget": {"type": "string", "enum": enum(DecisionTarget)},
            "OperationalAction": {"type": "string", "enum": enum(OperationalAction)},
        },
    }


def expected_files(seed_schema: bytes) -> dict[str, str]:
    """Every file ``schemas/`` must hold, with its exact text."""
    files = {name: dumps_canonical(model_schema(name, model)) for name, model in GENERATED.items()}
    files[COMMON_SCHEMA] = dumps_canonical(common_schema())
    files[SEED_SCHEMA] = seed_schema.decode("utf-8")
    return files


def write_schemas(directory: Path) -> list[str]:
    """Regenerate ``directory`` (keeps the seed schema as it is). Returns the files written."""
    from wmcdp_desktop.core.atomic import atomic_write_text

    seed = (directory / SEED_SCHEMA).read_bytes()
    written = []
    for name, text in expected_files(seed).items():
        atomic_write_text(directory / name, text)
        written.append(name)
    return sorted(written)


def stale_schemas(directory: Path) -> list[str]:
    """Names of files in ``directory`` that differ from what the models generate (or are missing)."""
    seed_path = directory / SEED_SCHEMA
    if not seed_path.exists():
        return [SEED_SCHEMA]
    stale = []
    for name, text in expected_files(seed_path.read_bytes()).items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return sorted(stale)
