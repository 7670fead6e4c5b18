"""The approval dialog's Qt-free half: grouping and order, answer rules, wording, dwell times."""
