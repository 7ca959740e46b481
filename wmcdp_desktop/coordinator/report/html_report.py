"""``report.html``: one self-contained page (inline CSS, charts as ``data:`` PNGs, no scripts, no links out).

Every piece of text that comes from data (ratings, ids, model names, study title, notes) goes through
``html.escape``: ratings are untrusted input.
"""

from __future__ import annotations

import base64
import html
from typing import Any

from wmcdp_desktop.coordinator.report.common import Table, clean
from wmcdp_desktop.coordinator.report.result import Report

MAX_HTML_ROWS = 200

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:2px solid #1f5f99;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.82em;margin:.5em 0 1em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#eef3f8;position:sticky;top:0}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.na{color:#999;text-align:center}td.text{max-width:28em;white-space:pre-wrap}
.desc{color:#444;font-size:.9em;max-width:60em}.notes{background:#fff8e1;border-left:4px solid #e0a800;
padding:.5em 1em;margin:1em 0}.notes li{margin:.2em 0}.meta td{border:none;padding:.1em .8em .1em 0}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}img{max-width:100%;height:auto}
.flag{color:#b00020;font-weight:600}
.findings{background:#eef6ee;border-left:4px solid #3a9a5b;padding:.5em 1em;margin:1em 0}
"""

_PERCENT_HINTS = ("share", "rate", "agreement")


def html_cell(column: str, value: Any, percent: bool = False) -> str:
    value = clean(value)
    if value is None:
        return '<td class="na" title="not computable; see the notes">–</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int):
        return f'<td class="num">{value}</td>'
    if isinstance(value, float):
        if percent or (any(h in column for h in _PERCENT_HINTS) and "alpha" not in column):
            return f'<td class="num">{value:.1%}</td>'
        if column.endswith("_s"):  # seconds: 180, 157.5 - not 180.000
            return f'<td class="num">{round(value, 1):g}</td>'
        return f'<td class="num">{value:.3f}</td>'
    text = html.escape(str(value))
    if column == "flag" and text:
        return f'<td class="flag">{text}</td>'
    cls = ' class="text"' if len(text) > 40 else ""
    return f"<td{cls}>{text}</td>"


def render_table(table: Table) -> str:
    out = [f'<h3 id="{html.escape(table.name)}">{html.escape(table.title)}</h3>']
    if table.description:
        out.append(f'<p class="desc">{html.escape(table.description)}</p>')
    if not table.rows:
        out.append('<p class="desc"><em>No rows (see the notes).</em></p>')
        return "\n".join(out)
    out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
               + "</tr></thead><tbody>")
    for row in table.rows[:MAX_HTML_ROWS]:
        out.append("<tr>" + "".join(html_cell(c, v, table.percent) for c, v in zip(table.columns, row, strict=True))
                   + "</tr>")
    out.append("</tbody></table>")
    if len(table.rows) > MAX_HTML_ROWS:
        out.append(f'<p class="desc">{len(table.rows) - MAX_HTML_ROWS} more rows in '
                   f"tables/{html.escape(table.name)}.csv.</p>")
    return "\n".join(out)


def _notes(notes: list[str]) -> str:
    if not notes:
        return ""
    return '<div class="notes"><strong>Notes</strong><ul>' + "".join(
        f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></div>"


def _findings(findings: list[str]) -> str:
    if not findings:
        return ""
    return '<div class="findings"><strong>Key findings</strong><ul>' + "".join(
        f"<li>{html.escape(f)}</li>" for f in findings) + "</ul></div>"


def _meta_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def render_html(report: Report) -> str:
    meta = report.meta
    title = meta.study_title or meta.study_id or "WM-CDP study"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>WM-CDP report: {html.escape(str(title))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>WM-CDP report: {html.escape(str(title))}</h1>",
        '<table class="meta">' + "".join(
            f"<tr><td>{html.escape(k.replace('_', ' '))}</td><td>{html.escape(_meta_text(v))}</td></tr>"
            for k, v in meta.as_json_obj().items()) + "</table>",
        "<p class=\"desc\">Every table is also in <code>tables/*.csv</code>; all figures are in "
        "<code>summary.json</code>. A dash means the figure cannot be computed from these data; the notes "
        "say why.</p>",
        "<nav><ul>" + "".join(f'<li><a href="#{s.key}">{html.escape(s.title)}</a></li>' for s in report.sections)
        + "</ul></nav>",
        _findings(report.findings),
        _notes([n.text for n in report.notes if n.section == "data"]),
    ]
    for section in report.sections:
        parts.append(f'<h2 id="{section.key}">{html.escape(section.title)}</h2>')
        parts.append(f'<p class="desc">{html.escape(section.intro)}</p>')
        parts.append(_notes([n.text for n in report.notes if n.section == section.key]))
        for chart in section.charts:
            data = base64.b64encode(chart.png).decode("ascii")
            parts.append(f'<figure><img alt="{html.escape(chart.caption)}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(chart.caption)}</figcaption></figure>")
        for table in section.tables:
            parts.append(render_table(table))
    parts.append(f'<p class="desc">Written by wmcdp {html.escape(meta.wmcdp_version)} '
                 f"(seed {meta.seed}, {meta.bootstrap} shuffled-rater copies; intervals: "
                 f"{html.escape(meta.intervals)}).</p></body></html>")
    return "\n".join(p for p in parts if p) + "\n"
