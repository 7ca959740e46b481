"""A field table per document, generated from the published JSON Schemas (so it cannot drift from the
models): every field with its JSON path, type, whether it is required and what it means.

``docs/FORMATS.md`` holds them between ``<!-- field tables -->`` markers (``python -m tools.field_tables``
rewrites them; a test fails when they are stale) and ``wmcdp study init`` puts the ones a study author
needs into the starter's README.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from wmcdp_desktop.core.ids import IDENTIFIER_PATTERN
from wmcdp_desktop.core.models.common import DATETIME_PATTERN, SEMVER_PATTERN, SHA256_PATTERN

_PATTERNS = {
    IDENTIFIER_PATTERN: "id",
    DATETIME_PATTERN: "date-time (RFC 3339, with offset)",
    SEMVER_PATTERN: "version (semver)",
    SHA256_PATTERN: "SHA-256 (64 lower-case hex digits)",
}
MAX_DEPTH = 8


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


class _Walker:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.rows: list[tuple[str, str, str, str]] = []

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/$defs/"):
                return {"description": f"see {ref}"}
            merged = {**self.defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in node.items() if k != "$ref"}}
            node = merged
        return node

    def type_text(self, node: dict[str, Any]) -> str:
        node = self.resolve(node)
        if "const" in node:
            return f"always `{node['const']}`"
        if "enum" in node:
            return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
        for key in ("anyOf", "oneOf"):
            if key in node:
                return " or ".join(self.type_text(n) for n in node[key])
        kind = node.get("type")
        if kind == "string":
            pattern = node.get("pattern")
            if pattern in _PATTERNS:
                return _PATTERNS[pattern]
            if pattern and pattern.startswith("^WM-FM-"):
                return "failure-mode id (WM-FM-...)"
            if pattern and pattern.startswith("^WM-RUB-"):
                return "dimension id (WM-RUB-001..008)"
            if node.get("minLength") == 1 or pattern:
                return "text (not blank)" if not pattern or pattern.startswith("[^") else f"text matching `{pattern}`"
            return "text"
        if kind in ("integer", "number"):
            word = "whole number" if kind == "integer" else "number"
            lo = node.get("minimum", node.get("exclusiveMinimum"))
            hi = node.get("maximum", node.get("exclusiveMaximum"))
            if lo is not None and hi is not None:
                return f"{word} {lo}-{hi}"
            if "exclusiveMinimum" in node:
                return f"{word} > {node['exclusiveMinimum']}"
            if lo is not None:
                return f"{word} >= {lo}"
            return word
        if kind == "boolean":
            return "true or false"
        if kind == "array":
            item = self.resolve(node.get("items", {}))
            inner = "object" if item.get("type") == "object" and "properties" in item else self.type_text(item)
            extra = []
            if node.get("minItems"):
                extra.append(f"at least {node['minItems']}")
            if node.get("maxItems"):
                extra.append(f"at most {node['maxItems']}")
            if node.get("uniqueItems"):
                extra.append("no repeats")
            return f"list of {inner}" + (f" ({', '.join(extra)})" if extra else "")
        if kind == "object":
            if "properties" in node:
                return "object"
            value = node.get("additionalProperties")
            keys = node.get("propertyNames", {})
            key_text = self.type_text(keys) if keys else "text"
            if isinstance(value, dict):
                return f"map: {key_text} -> {self.type_text(value)}"
            return "object (any keys)"
        return "any JSON value"

    def walk(self, node: dict[str, Any], prefix: str, depth: int = 0) -> None:
        node = self.resolve(node)
        required = set(node.get("required", []))
        for name, child in node.get("properties", {}).items():
            path = f"{prefix}{name}"
            resolved = self.resolve(child)
            description = resolved.get("description", child.get("description", ""))
            self.rows.append((path, self.type_text(child), "yes" if name in required else "", description))
            if depth >= MAX_DEPTH:
                continue
            if resolved.get("type") == "object" and "properties" in resolved:
                self.walk(resolved, path + ".", depth + 1)
            elif resolved.get("type") == "array":
                item = self.resolve(resolved.get("items", {}))
                if item.get("type") == "object" and "properties" in item:
                    self.walk(item, path + "[].", depth + 1)
            elif resolved.get("type") == "object" and isinstance(resolved.get("additionalProperties"), dict):
                value = self.resolve(resolved["additionalProperties"])
                if value.get("type") == "array":
                    value = self.resolve(value.get("items", {}))
                    if value.get("type") == "object" and "properties" in value:
                        self.walk(value, path + ".<key>[].", depth + 1)
                elif value.get("type") == "object" and "properties" in value:
                    self.walk(value, path + ".<key>.", depth + 1)


def field_rows(model: type[BaseModel]) -> list[tuple[str, str, str, str]]:
    """(JSON path, type, "yes" when required, description) for every field of ``model``'s document, as the
    published schema states them (nested objects as ``a.b``, list items as ``a[].b``)."""
    from wmcdp_desktop.coordinator.publish.schemas import model_schema

    walker = _Walker(model_schema("x.schema.json", model))
    walker.walk(walker.resolve(model_schema("x.schema.json", model)), "")
    return walker.rows


def field_table(model: type[BaseModel]) -> str:
    """A Markdown table of :func:`field_rows`."""
    lines = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for path, kind, required, description in field_rows(model):
        lines.append(f"| `{path}` | {_cell(kind)} | {required} | {_cell(description)} |")
    return "\n".join(lines) + "\n"


def documents() -> list[tuple[str, str, type[BaseModel]]]:
    """(title, where it lives, model) of every document with a field table, in the order of FORMATS.md."""
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
    from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
    from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
    from wmcdp_desktop.core.models.draft import Draft
    from wmcdp_desktop.core.models.passphrases import PassphrasesFile
    from wmcdp_desktop.core.models.unblinding_key import UnblindingKey

    return [
        ("Study", "study folder `study.json`", Study),
        ("Benchmark item", "study folder `items/*.json`", BenchmarkItem),
        ("Case (scenario)", "study folder `cases/*.json`", Case),
        ("Candidate response", "study folder `responses/*.jsonl`, one per line", CandidateResponse),
        ("Rubric", "study folder and bundle `rubric.json`", Rubric),
        ("Bundle manifest", "bundle `bundle.json`", BundleManifest),
        ("Blinded task", "bundle `tasks/*.json`", Task),
        ("Rating record", "one file per submitted rating", RatingRecord),
        ("Cannot-rate record", "one file per task the rater could not rate", CannotRateRecord),
        ("Results export manifest", "export zip `manifest.json`", ResultsManifest),
        ("Draft", "rater data folder `drafts/*.json`", Draft),
        ("Unblinding key", "written by `wmcdp bundle build`", UnblindingKey),
        ("Passphrases", "`keys/passphrases.json`, written by `wmcdp bundle build --encrypt`", PassphrasesFile),
    ]


def all_tables(heading: str = "###") -> str:
    """Every document's field table under its own heading."""
    parts = []
    for title, where, model in documents():
        required = sum(1 for row in field_rows(model) if row[2])
        parts.append(f"{heading} {title} ({where})\n\n{required} required fields (nested ones included).\n\n"
                     + field_table(model))
    return "\n".join(parts)
