"""The documentation site's reference, generated from the code at build time.

``mkdocs build`` loads :mod:`docsite.hooks`, which adds the pages of
:data:`docsite.pages.GENERATED` (commands and options from the click definitions, settings from
``Settings``, exit codes from ``lakeshift.errors``, anomaly codes from the modules that raise
them) to the site; :mod:`docsite.check` reads a built site back and names what the code defines
that the built reference lacks. Not part of the installed package: it documents it.
"""
