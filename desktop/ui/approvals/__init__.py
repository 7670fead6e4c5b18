"""The grouped approval dialog (``dialog``) and its Qt machinery; rules live in desktop.model."""
