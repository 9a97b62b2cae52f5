"""The erasure report: Markdown and a self-contained HTML page from an :class:`ErasureState`."""

from __future__ import annotations

import html
from pathlib import Path

from lakeshift.erase.state import AUDITED, ErasureState
from lakeshift.report.files import report_dir, write_report


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def legacy_note(state: ErasureState) -> str:
    """Where the erased rows of adopted files remain: in the Hive source's own files, which
    the lake table referenced and no longer does."""
    files = sorted(state.legacy_files)
    rows = sum(state.legacy_files.values())
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return (
        f"{rows:,} erased row(s) remain in {len(files)} file(s) of the legacy Hive table, "
        f"outside the lake table's location: {shown}. The lake table had adopted them and no "
        "longer references them (their other rows were rewritten into its location); they "
        "stay the Hive table's, and the audit neither reads nor deletes them, until "
        "`lakeshift retire --delete-files`."
    )


def unreachable(state: ErasureState) -> list[str]:
    """What lakeshift cannot reach, with its own count of matching rows and what to do."""
    lines = [legacy_note(state)] if state.legacy_files else []
    lines += state.notes
    for table, count in state.hive_matching.items():
        rows = "an unknown number of" if count is None else f"{count:,}"
        lines.append(
            f"Hive table {table} still holds {rows} matching row(s): lakeshift never modifies "
            "Hive data. Delete them with your Hive tooling, or retire the table "
            "(`lakeshift retire`) once it is no longer needed."
        )
    return lines


def markdown(state: ErasureState) -> str:
    audit = state.audit
    lines = [
        f"# Erasure {state.erase_id}",
        "",
        f"`{state.source}` ({state.format} table `{state.lake_table}`), selection "
        f"`{state.selector}`: {sum(state.matched.values()):,} rows in "
        f"{len(state.matched)} partitions; step **{state.step}**.",
        "",
        "| partition | rows erased |",
        "|---|---|",
        *[f"| `{p}` | {n:,} |" for p, n in sorted(state.matched.items())],
        "",
        f"Commit: {state.commit_id}; files purged: {len(state.purged)}.",
        "",
    ]
    if audit:
        verdict = "passed" if audit.get("passed") else "FAILED"
        lines += [
            f"## Audit: {verdict}",
            "",
            f"{audit['data_files']} data files and {audit['metadata_files']} metadata/log files "
            f"read; {audit['keys_searched']} keys and {audit['values_searched']} values searched; "
            f"predicate checked on data files: {audit['predicate_checked']}.",
            "",
            *[f"- finding: {f}" for f in audit.get("findings", [])],
            *[f"- note: {n}" for n in audit.get("notes", [])],
            "",
        ]
    lines += ["## Not reached by lakeshift", "", *[f"- {u}" for u in unreachable(state)], ""]
    return "\n".join(lines)


def render_html(state: ErasureState) -> str:
    audit = state.audit
    passed = state.step == AUDITED and audit.get("passed")
    rows = "".join(
        f"<tr><td>{_e(p)}</td><td>{n:,}</td></tr>" for p, n in sorted(state.matched.items())
    )
    findings = "".join(f"<li>{_e(f)}</li>" for f in audit.get("findings", []))
    notes = "".join(f"<li>{_e(n)}</li>" for n in audit.get("notes", []))
    unreached = "".join(f"<li>{_e(u)}</li>" for u in unreachable(state))
    verdict = "passed" if passed else ("failed" if audit else "not run yet")
    colour = "#1b7837" if passed else "#b2182b"
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>lakeshift erasure {_e(state.erase_id)}</title><style>
body{{font-family:sans-serif;margin:2em;max-width:60em}}td,th{{padding:2px 8px;text-align:left}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f3f3f3}}
.verdict{{color:{colour};font-weight:bold}}</style></head><body>
<h1>Erasure {_e(state.erase_id)}: {_e(state.source)}</h1>
<p>{_e(state.format)} table {_e(state.lake_table)}, selection <code>{_e(state.selector)}</code>;
step <b>{_e(state.step)}</b>; commit {_e(state.commit_id)}; {len(state.purged)} files purged.</p>
<h2>Audit: <span class="verdict">{verdict}</span></h2>
<p>{_e(audit.get("data_files", 0))} data files and {_e(audit.get("metadata_files", 0))}
metadata/log files read under the table location.</p>
<ul>{findings}{notes}</ul>
<h2>Rows erased per partition</h2><table><tr><th>partition</th><th>rows</th></tr>{rows}</table>
<h2>Not reached by lakeshift</h2><ul>{unreached}</ul>
</body></html>
"""


def write_erasure_report(home: Path, state: ErasureState) -> Path:
    """Write JSON, Markdown and HTML under ``HOME/reports/SOURCE/``; returns the HTML path."""
    write_report(home, state.source, "erase", state.to_json(), markdown(state))
    path = report_dir(home, state.source) / f"erase-{state.erase_id}.html"
    path.write_text(render_html(state))
    return path
