"""Package discovery for setuptools; everything else lives in pyproject.toml.

Why this file exists: the icons, the .desktop entry and the AppStream file live in the
repository's top-level ``resources/`` folder, beside the package, so that packaging tools and
people find them without digging into the source tree. A wheel must still carry them, and
pyproject.toml's ``packages.find`` cannot add a package whose folder lies outside the tree it
searches. So the list is computed here: every ``desktop*`` package found automatically, plus
``desktop.resources`` mapped onto ``resources/``. In an installed wheel the files therefore sit
at ``desktop/resources/``; in a checkout or editable install they stay at ``resources/``.
``desktop.ui.icons.icon_dir()`` looks in both places, so the app code never needs to know which.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["desktop", "desktop.*"]), "desktop.resources"],
    package_dir={"desktop.resources": "resources"},
)
