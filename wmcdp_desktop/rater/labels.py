"""Readable names for the catalogue ids a task carries (``WM-DOM-OCD`` -> "OCD", ``WM-SCN-REASSURANCE-SEEKING``
-> "Reassurance seeking"), for the rater's screen. Derived from the task's clinical domain and scenario types
only: nothing about the model that wrote the response."""

from __future__ import annotations

import re

from wmcdp_desktop.core.models.task import Task

_CATALOGUE_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*-(?:DOM|SCN)-(?=.)")
ACRONYMS = frozenset({"OCD", "GAD", "PTSD", "ADHD", "ASD", "CBT", "ERP", "BDD", "ARFID", "SAD", "UK", "US", "GP", "AI"})
"""Words kept in capitals."""


def readable_id(identifier: str) -> str:
    """``WM-DOM-SEPARATION-ANXIETY`` -> "Separation anxiety"; other ids just lose their dashes/underscores."""
    rest = _CATALOGUE_PREFIX.sub("", identifier)
    words = [w for w in re.split(r"[-_\s]+", rest) if w]
    if not words:
        return identifier
    if rest == identifier or rest.upper() != rest:  # not a catalogue id, or mixed case: keep the spelling
        return " ".join(words)
    out = [w if w in ACRONYMS else w.lower() for w in words]
    first = out[0]
    out[0] = first if first in ACRONYMS else first[:1].upper() + first[1:]
    return " ".join(out)


def _in_sentence(name: str) -> str:
    """A readable name as it reads after the first item of a list ("Reassurance seeking" -> "reassurance seeking")."""
    return name if name.split(" ", 1)[0] in ACRONYMS else name[:1].lower() + name[1:]


def task_title(task: Task) -> str:
    """Short title for the task list: "OCD · reassurance seeking" (domain, first scenario type)."""
    domain = readable_id(task.clinical_domain_id)
    if not task.scenario_type_ids:
        return domain
    return f"{domain} · {_in_sentence(readable_id(task.scenario_type_ids[0]))}"


def task_full_title(task: Task) -> str:
    """The whole title, for the task's heading, tooltip and accessible description: "Separation anxiety ·
    accommodation, reassurance seeking" (domain, every scenario type)."""
    domain = readable_id(task.clinical_domain_id)
    if not task.scenario_type_ids:
        return domain
    return f"{domain} · {_in_sentence(scenario_types_text(task))}"


def scenario_types_text(task: Task) -> str:
    """All scenario types, readable: "Reassurance seeking, accommodation"."""
    names = [readable_id(s) for s in task.scenario_type_ids]
    return ", ".join(names[:1] + [_in_sentence(n) for n in names[1:]])
