"""Qt-free presentation models shared by every surface (menu, dialog, notification, journal)."""
