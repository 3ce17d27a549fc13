"""``python -m canasta_teach``: the ``canasta-teach`` command (``canasta_teach.cli``)."""

from canasta_teach.cli import main

raise SystemExit(main())
