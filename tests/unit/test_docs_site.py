"""The manual builds strictly, and its generated reference lists everything the code defines.

One strict MkDocs build into a temporary directory (a broken link or anchor, a page missing from
the navigation or a navigation entry without its page fails it), then the built reference pages
read back against the code: every command and option, setting, exit code and anomaly code must
be there. Each kind is then added to the code in-process to show the check reports it missing.
A built page is opened in headless Chromium. No Spark: a few seconds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from docsite import anomaly_codes, check, cli_reference, settings_reference
from lakeshift import config, errors
from tests.helpers.browser import dump_dom

REPO = Path(__file__).resolve().parents[2]
README_LIMIT = 250


def _build(site_dir: Path, **overrides: object) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    # strict (mkdocs.yml): any warning aborts the build once it is done.
    build(load_config(str(REPO / "mkdocs.yml"), site_dir=str(site_dir), **overrides))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NO_MKDOCS_2_WARNING", "1")  # Material's banner about MkDocs 2
        _build(out)
    return out


def test_every_page_of_docs_is_built(site: Path) -> None:
    sources = sorted(p.relative_to(REPO / "docs") for p in (REPO / "docs").rglob("*.md"))
    assert Path("index.md") in sources and Path("DESIGN-NOTES.md") in sources
    for source in sources:
        assert (site / source.with_suffix(".html")).is_file(), source
    for generated in ("cli", "settings", "exit-codes", "anomalies"):
        assert (site / "reference" / "generated" / f"{generated}.html").is_file()
    # A pipe GitHub's tables want escaped inside a code span shows as a pipe here too.
    assert (
        "<code>lakeshift metastore start|stop|status</code>"
        in (site / "what-works.html").read_text()
    )


def test_the_built_reference_lists_everything_the_code_defines(site: Path) -> None:
    assert check.missing(site) == []
    # Not vacuous: the reference holds the commands, settings and codes themselves.
    assert len(cli_reference.commands()) > 25
    assert {"follow_quiet_seconds", "hive_version"} <= {
        s.key for s in settings_reference.settings()
    }
    assert {"archived", "writer-zone-missing"} <= {a.code for a in anomaly_codes.anomaly_codes()}


def _dummy_option() -> Iterator[str]:
    follow = cli_reference.root().commands["follow"]
    option = click.Option(["--docs-check-dummy"], help="Not a real option.")
    follow.params.append(option)
    try:
        yield "lakeshift follow: --docs-check-dummy"
    finally:
        follow.params.remove(option)


def _dummy_command() -> Iterator[str]:
    group = cli_reference.root()
    group.add_command(click.Command("docs-check-dummy", help="Not a real command."))
    try:
        yield "command lakeshift docs-check-dummy"
    finally:
        del group.commands["docs-check-dummy"]


def _dummy_setting() -> Iterator[str]:
    extended = dataclasses.make_dataclass(
        "Settings",
        [("docs_check_dummy", int, dataclasses.field(default=1))],
        bases=(config.Settings,),
        frozen=True,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(config, "Settings", extended)
        yield "setting docs_check_dummy (LAKESHIFT_DOCS_CHECK_DUMMY, default 1)"


def _dummy_exit_code() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(errors, "EXIT_DOCS_CHECK_DUMMY", 99, raising=False)
        yield "exit code 99 (EXIT_DOCS_CHECK_DUMMY)"


def _dummy_anomaly(tmp: Path) -> Iterator[str]:
    module = tmp / "dummy_check.py"
    module.write_text(
        "def check(p):\n"
        '    return [_anomaly(p, "docs-check-dummy", SEVERITY_INFO, "a message", "an action")]\n'
    )
    real = anomaly_codes.source_files()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(anomaly_codes, "source_files", lambda: [*real, module])
        yield "anomaly docs-check-dummy"


DUMMIES: dict[str, Callable[[Path], Iterator[str]]] = {
    "option": lambda tmp: _dummy_option(),
    "command": lambda tmp: _dummy_command(),
    "setting": lambda tmp: _dummy_setting(),
    "exit code": lambda tmp: _dummy_exit_code(),
    "anomaly code": _dummy_anomaly,
}


@pytest.mark.parametrize("kind", DUMMIES)
def test_the_check_reports_what_the_code_gained_since_the_build(
    site: Path, tmp_path: Path, kind: str
) -> None:
    added = DUMMIES[kind](tmp_path)
    expected = next(added)
    try:
        assert check.missing(site) == [expected]
    finally:
        next(added, None)  # the dummy removed again
    assert check.missing(site) == []


def test_an_anomaly_whose_code_cannot_be_read_fails_the_build(tmp_path: Path) -> None:
    module = tmp_path / "computed.py"
    module.write_text(
        "def check(p, which):\n"
        '    return [_anomaly(p, "prefix-" + which, SEVERITY_INFO, "m", "a")]\n'
    )
    with pytest.raises(anomaly_codes.UnresolvedCode, match=r"computed\.py:2"):
        anomaly_codes.anomaly_codes([module])


def test_a_broken_link_or_a_page_left_out_fails_the_strict_build(tmp_path: Path) -> None:
    from mkdocs.exceptions import Abort

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n")
    (docs / "orphan.md").write_text("# Not in the navigation\n")
    with pytest.raises(Abort, match="2 warnings"):
        _build(tmp_path / "site", docs_dir=str(docs), nav=[{"Home": "index.md"}], hooks=[])


def _links(markdown: str) -> list[str]:
    """Relative link targets of a Markdown text (code spans and blocks left out)."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]


def test_readme_is_short_and_its_links_reach_the_manual(site: Path) -> None:
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LIMIT
    links = _links(readme)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        path, _, anchor = link.partition("#")
        assert (REPO / path).exists(), f"README links to {path}, which does not exist"
        if anchor and path.startswith("docs/") and path.endswith(".md"):
            built = site / Path(path).relative_to("docs").with_suffix(".html")
            assert anchor in check.read_page(built), f"README links to {link}: no such anchor"


def test_a_built_page_renders_in_headless_chromium(site: Path, tmp_path: Path) -> None:
    dom = dump_dom(site / "index.html", tmp_path / "profile")
    assert "<title>lakeshift</title>" in dom
    # Material's navigation, drawn from mkdocs.yml, and the page's own text.
    for shown in (
        "Getting started",
        "Which Hive are you migrating from?",
        "Generated from the code",
    ):
        assert shown in dom, shown
    assert "every command and option" in dom
