"""``python -m bench``: run every benchmark and print the table (see ``bench.cli``)."""

from bench.cli import main

raise SystemExit(main())
