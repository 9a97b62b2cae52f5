"""The documentation site's reference, generated from the code at build time.

``mkdocs build`` loads :mod:`docsite.hooks`, which adds the pages of
:data:`docsite.pages.GENERATED` (commands and options from the click definitions, settings from
``Settings``, exit codes from ``lakeshift.errors``, anomaly codes from the modules that raise
them) to the site; :mod:`docsite.check` reads a built site back and names what the code defines
that the built reference lacks. Not part of the installed package: it documents it.

Why a hook of our own rather than plugins: mkdocs-click would cover the commands only, and
mkdocstrings renders docstrings but knows nothing of environment variables, exit codes or
anomaly codes; one in-repo hook covers all four with no further dependency. Anomaly codes have
no registry (each is a literal where ``inspect`` raises it), so they are read from the syntax
tree, and a code that cannot be read fails the build rather than going missing. The check reads
the *built HTML*, not the generated Markdown, so a page that renders wrong fails it too.
"""
